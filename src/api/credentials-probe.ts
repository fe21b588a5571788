// The credentials check of `mpay doctor`: a withdraw initiate that carries only the merchant key, site id
// and API key. Only an answer that proves nothing was made passes.
import { AuthError, MpayError, ServerError } from '../common/errors.js';
import type { InitiatedPayment } from './schemas.js';

export type ProbeVerdict =
  | { verdict: 'accepted' }
  | { verdict: 'rejected'; error: MpayError }
  | { verdict: 'created'; payment?: InitiatedPayment; status: number };

/** The fields of a credentials-only initiate: the credentials it carries, the customer's it leaves out. */
const credentialFields = ['merchant_key', 'site_id', 'api_key'];
const customerFields = [
  'currency_code',
  'country_code',
  'amount',
  'customer_first_name',
  'customer_phone',
  'customer_email',
  'customer_transaction_id',
];

/**
 * Checks merchant key, site id and API key without creating anything: a withdraw initiate that carries
 * only the credentials. Only a 422 that names missing customer fields and none of the credentials proves
 * both that they were accepted and that nothing was created. A 2xx means the server created a withdrawal
 * from that request after all: it is reported as such (`created`), with its answer, never as a pass.
 */
export async function probeCredentials(initiate: () => Promise<InitiatedPayment>): Promise<ProbeVerdict> {
  let payment: InitiatedPayment;
  try {
    payment = await initiate();
  } catch (err) {
    if (!(err instanceof MpayError)) throw err;
    // A success whose body mpay cannot read may still have created a withdrawal.
    if (err.status !== null && err.status >= 200 && err.status < 300)
      return { verdict: 'created', status: err.status };
    if (err.kind !== 'validation') return { verdict: 'rejected', error: err };
    const bad = credentialFields.filter((f) => err.fields[f]);
    if (bad.length)
      return {
        verdict: 'rejected',
        error: new AuthError(`Rejected: ${bad.map((f) => `${f} (${err.fields[f]!.join(' ')})`).join(', ')}`, {
          status: err.status,
          fields: err.fields,
        }),
      };
    if (customerFields.some((f) => err.fields[f])) return { verdict: 'accepted' };
    return {
      verdict: 'rejected',
      error: new ServerError(
        `Withdraw initiate answered a request of credentials only with HTTP ${err.status ?? '?'} but named no missing customer field: ${err.message}`,
        {
          status: err.status,
          fields: err.fields,
          hint: 'This does not show that the API key was accepted',
        },
      ),
    };
  }
  return { verdict: 'created', payment, status: 200 };
}
