// `mpay replay TRACE --save-scenario FILE`: a trace's API calls (as replay reads them, api/har-read.ts)
// written as an editable scenario of `mpay run` (docs/scenarios.md): a raw request step a call, the hash
// token an initiate answered captured and referred to by the later calls of its transaction, a fresh
// reference for each initiate, an expectation of each recorded status. Secrets and personal data are left
// out: the run's own credentials supply them (`credentials: true`), customer data becomes variables with
// neutral defaults, a one-time code a variable the run must give.
import { stringify } from 'yaml';
import { endpoint, neutralCustomer } from '../../api/endpoints.js';
import type { RecordedCall } from '../../api/har-read.js';
import { redacted } from '../../api/redact.js';
import { isSecretName, secretValuePattern } from '../../api/secret-names.js';
import { recordedInitiates, textOf, unreplayable } from './replay-plan.js';

const isInitiate = (c: RecordedCall) => endpoint(c.endpoint).money?.step === 'initiate';

/** The API's per-field errors of a recorded answer name this field (a 422's `errors`). */
function errorOn(c: RecordedCall, field: string): boolean {
  try {
    const errors = (JSON.parse(c.response.text ?? '') as { errors?: unknown }).errors;
    return Boolean(errors && typeof errors === 'object' && field in errors);
  } catch {
    return false;
  }
}

/**
 * Each recorded customer_transaction_id, by the number of its \${run.reference}-N (N counts the trace's
 * distinct references, in order); and the initiates the API refused because their reference was taken
 * (a 422 on customer_transaction_id). Those are left out: a fresh reference cannot reproduce the refusal,
 * and the one reference sent twice would stop at mpay's journal, which refuses a reference it holds
 * before anything is sent.
 */
function recordedReferences(calls: RecordedCall[]): { numbers: Map<string, number>; taken: Set<number> } {
  const numbers = new Map<string, number>();
  const taken = new Set<number>();
  calls.forEach((c, i) => {
    const ref = textOf(c.body?.customer_transaction_id);
    if (ref === undefined) return;
    if (isInitiate(c) && c.response.status === 422 && errorOn(c, 'customer_transaction_id'))
      return void taken.add(i);
    if (!numbers.has(ref)) numbers.set(ref, numbers.size + 1);
  });
  return { numbers, taken };
}

/**
 * What a step expects: the recorded status, and what the recorded answer showed beyond it: its success
 * flag, which of its endpoint's answers came back (withdraw processed: the code sent, `data: []`, or the
 * withdrawal processed), and the transaction's status where the answer carries one. A withdrawal left
 * initiated where the trace saw it processed fails its step.
 */
function expectationOf(c: RecordedCall): Record<string, unknown> | undefined {
  if (!c.response.status) return undefined;
  const values: Record<string, unknown> = {};
  let doc: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(c.response.text ?? '');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      doc = parsed as Record<string, unknown>;
  } catch {
    // not JSON: its status alone
  }
  if (typeof doc?.success === 'boolean') values.success = doc.success;
  else if (typeof doc?.status === 'boolean') values.status = doc.status;
  const ep = endpoint(c.endpoint);
  const ok = c.response.status < 300 && doc && 'data' in doc;
  if (ok && ep.answers?.(doc!.data) === 'code sent') values.data = [];
  const data = doc?.data;
  if (ok && data && typeof data === 'object' && !Array.isArray(data)) {
    const status = (data as Record<string, unknown>).status;
    if (typeof status === 'string') values['data.status'] = status;
  }
  return { status: c.response.status, ...(Object.keys(values).length ? { values } : {}) };
}

/** The scenario's text, and how many calls became steps. */
export function scenarioFromTrace(calls: RecordedCall[], source: string): { text: string; steps: number } {
  const made = recordedInitiates(calls);
  const left = unreplayable(calls);
  const refs = recordedReferences(calls);
  const vars: Record<string, unknown> = {};
  const notes: string[] = [];
  const steps: Record<string, unknown>[] = [];
  calls.forEach((c, i) => {
    if (endpoint(c.endpoint).token)
      return notes.push(`call ${i + 1} (token generate): left out; the run makes its own token`);
    if (left.has(i)) return notes.push(`call ${i + 1} (${c.method} /${c.path}): left out, ${left.get(i)}`);
    if (refs.taken.has(i))
      return notes.push(
        `call ${i + 1} (${c.method} /${c.path}): left out, the API refused its reference as taken (recorded 422): a fresh reference cannot reproduce that, and mpay refuses a reference its journal holds before sending it`,
      );
    // the step's number is its place in the scenario (mpay run shows it): the name says what it sends
    const step: Record<string, unknown> = { name: `${c.method} /${c.path}` };
    const request: Record<string, unknown> = { method: c.method, path: `/${c.path}` };
    if (c.body) {
      const { body, credentials } = bodyOf(c, refs.numbers, made, vars);
      if (credentials) request.credentials = true;
      request[c.encoding === 'multipart' ? 'form' : 'json'] = body;
    }
    step.request = request;
    if ([...made.values()].includes(i)) step.capture = { [`hash_${i + 1}`]: 'data.has_token' };
    const expected = expectationOf(c);
    if (expected) step.expect = expected;
    steps.push(step);
  });
  const doc = {
    name: `replay of ${source}`,
    ...(Object.keys(vars).length ? { vars } : {}),
    steps,
  };
  const header = [
    `# Written by mpay replay ${source} --save-scenario: run it with \`mpay run FILE\` (docs/scenarios.md).`,
    '# Credentials come from the run; customer data is neutral (vars, --var to change it).',
    ...notes.map((n) => `# ${n}`),
  ];
  return { text: `${header.join('\n')}\n${stringify(doc, { lineWidth: 0 })}`, steps: steps.length };
}

function bodyOf(
  c: RecordedCall,
  references: Map<string, number>,
  made: Map<string, number>,
  vars: Record<string, unknown>,
): { body: Record<string, unknown>; credentials: boolean } {
  // no prototype: a field named __proto__ (or constructor) is a field like any other
  const body = Object.create(null) as Record<string, unknown>;
  let credentials = false;
  const credentialFields: readonly string[] = endpoint(c.endpoint).credentials;
  for (const [k, v] of Object.entries(c.body ?? {})) {
    if (credentialFields.includes(k)) credentials = true;
    else if (k === 'customer_transaction_id')
      body[k] = `\${run.reference}-${references.get(textOf(v) ?? '') ?? references.size + 1}`;
    else if (k === 'hash_token') body[k] = `\${hash_${(made.get(textOf(v) ?? '') ?? 0) + 1}}`;
    else if (k === 'otp') {
      vars.otp = null;
      body[k] = '${otp}';
    } else if (neutralCustomer[k]) {
      vars[k] ??= neutralCustomer[k](v);
      body[k] = `\${${k}}`;
    } else if (isSecretName(k)) continue;
    // a value loses its secret-named fields at any depth and its secret-shaped values here; the file is
    // then scrubbed by the run's secrets' values only, so that the ${otp} it needs stays
    else body[k] = withoutSecrets(v);
  }
  return { body, credentials };
}

/**
 * A recorded value as a scenario writes it: a field of a secret's name left out at any depth, a value of
 * a secret's shape (sk_live_…, whsec_…) replaced, and a literal `${` escaped (docs/scenarios.md).
 */
function withoutSecrets(v: unknown): unknown {
  if (typeof v === 'string') return v.replace(secretValuePattern, redacted).replace(/\$\{/g, '$${');
  if (Array.isArray(v)) return v.map(withoutSecrets);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => !isSecretName(k))
        .map(([k, c]) => [k, withoutSecrets(c)]),
    );
  return v;
}
