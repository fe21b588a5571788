// What a recorded trace brings into a replay besides its calls: the secrets it holds in the clear (a
// browser's trace), and a customer's personal data, which goes to a server that is not a sandbox only
// when a person says so.
import { CancelledError, UsageError } from '../../common/errors.js';
import { endpoint } from '../../api/endpoints.js';
import type { RecordedCall } from '../../api/har-read.js';
import type { Secrets } from '../../api/redact.js';
import { registerAnswerSecrets, registerSecretsIn } from '../../api/secret-names.js';
import type { Prompter } from '../prompter.js';

/**
 * A trace that mpay did not write (a browser's) may hold secrets in the clear: each one found by name is
 * registered, so that it is scrubbed by value from everything this run prints, wherever it appears.
 */
export function registerRecordedSecrets(calls: RecordedCall[], secrets: Secrets): void {
  const register = (v: string) => secrets.register(v);
  for (const c of calls) {
    secrets.learn(c.body);
    if (c.response.text !== undefined) secrets.learn(c.response.text);
    registerSecretsIn(c.body, register);
    registerAnswerSecrets(c.response.text ?? '', register);
  }
}

/** The personal fields (the endpoint table's) a recorded call holds. */
export const personalOf = (c: RecordedCall) =>
  endpoint(c.endpoint).personal.filter((k) => c.body?.[k] !== undefined);

/**
 * --keep-customer on a server that is not a sandbox sends a real customer's e-mail and phone there (a
 * real one-time code may reach them): asked on a terminal, refused without one unless --yes.
 */
export async function confirmKeepCustomer(
  calls: RecordedCall[],
  server: string,
  ask: { yes?: boolean; prompter: () => Promise<Prompter | undefined> },
): Promise<void> {
  const fields = [...new Set(calls.flatMap(personalOf))];
  if (!fields.length || ask.yes) return;
  const what = `the recorded customer's data (${fields.join(', ')}) to ${server}, which is not a sandbox`;
  const prompter = await ask.prompter();
  if (!prompter)
    throw new UsageError(`Nothing was sent: --keep-customer would send ${what}`, {
      hint: 'Add --yes to send it anyway, or leave out --keep-customer to send neutral values',
    });
  if (!(await prompter.confirm({ message: `Send ${what}?`, default: false })))
    throw new CancelledError('Nothing was sent: the recorded customer data was not confirmed', {
      hint: 'Leave out --keep-customer to send neutral values',
    });
}
