// A value a scenario captures from an answer is a secret when the answer names it as one (a token, a key:
// api/secret-names.ts), and is scrubbed from every output of the run: the terminal lines, --json,
// --ndjson, the JUnit and TAP reports, --trace and --debug. The tokens are learned from a forwarder in
// front of a real sandbox (what the server really minted), never from mpay's own output.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Secrets } from '../src/api/redact.js';
import { Journal } from '../src/journal/journal.js';
import { isSecretName, isSecretValue } from '../src/api/secret-names.js';
import {
  allJournalEvents,
  cliEnv,
  file,
  harEntry,
  harOf,
  rewritingProxy,
  sandbox,
  tempDir,
} from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
let fw: Awaited<ReturnType<typeof rewritingProxy>>;
beforeAll(async () => {
  sb = await sandbox();
  fw = await rewritingProxy(sb.url);
});
afterAll(async () => {
  await fw.close();
  await sb.close();
});

const scenario = `name: a token minted by a step
steps:
  - name: mint a token
    request: { method: POST, path: /auth/merchant/token/generate, credentials: true }
    capture: { t: data.token }
    expect:
      values:
        data.token: not-this-token
  - name: the token as an argument
    run: status
    args: ["\${t}"]
    expect: { exit: usage }
`;

/** Every token the sandbox minted so far, as it answered (the forwarder saw it). */
const minted = () =>
  fw.answers
    .filter((a) => a.route.endsWith('/auth/merchant/token/generate'))
    .map((a) => (JSON.parse(a.body) as { data: { token: string } }).data.token);

it('a token a scenario step mints appears in none of the run outputs', async () => {
  const dir = tempDir();
  const env = cliEnv({ url: fw.url }, dir);
  const f = file('token.yaml', scenario);
  const junit = join(dir, 'r.xml');
  const tap = join(dir, 'r.tap');
  const trace = join(dir, 't.har');
  const runs = [
    await mpay(
      [
        'run',
        f,
        '--ndjson',
        '--debug',
        '--trace',
        trace,
        '--report',
        `junit=${junit}`,
        '--report',
        `tap=${tap}`,
      ],
      { env },
    ),
    await mpay(['run', f], { env }),
    await mpay(['run', f, '--json'], { env }),
  ];
  const tokens = minted();
  expect(tokens).toHaveLength(3);
  for (const r of runs) expect(r.code, r.stderr).toBe(14);
  // the step did capture it, and used it: the outputs say so, masked
  expect(runs[0]!.stdout).toContain('"captured":{"t":"***"}');
  expect(runs[2]!.json().scenarios[0].steps[1].sent).toBe('mpay status ***');
  const outputs = [
    ...runs.flatMap((r) => [r.stdout, r.stderr]),
    readFileSync(junit, 'utf8'),
    readFileSync(tap, 'utf8'),
    readFileSync(trace, 'utf8'),
  ];
  for (const t of tokens) for (const o of outputs) expect(o).not.toContain(t);
});

it('secret-shaped names and values: the one list', () => {
  for (const n of [
    'merchant_secret_key',
    'x_signing_secret',
    'resetPassword',
    'otp_code',
    'card-pin',
    'webhookSigningKey',
    'primary_key',
    'X-Api-Signature',
    'refresh_token',
  ])
    expect(isSecretName(n), n).toBe(true);
  for (const n of [
    'hash_token',
    'has_token',
    'hashToken',
    'pinned',
    'spin',
    'keys',
    'key_id',
    'code',
    'tokens',
  ])
    expect(isSecretName(n), n).toBe(false);
  expect(isSecretValue('the key sk_live_51Habc is here')).toBe(true);
  expect(isSecretValue('whsec_abcDEF123')).toBe(true);
  expect(isSecretValue('ask_live_x')).toBe(false);
  // the scrubber replaces such a value wherever it stands, whatever it is called, though no run holds it
  const s = new Secrets();
  expect(s.text('provider key sk_live_51Habc, hook whsec_XYZ123.')).toBe('provider key ***, hook ***.');
  expect(s.value({ note: 'sk_live_51Habc', list: ['whsec_XYZ123'] })).toEqual({ note: '***', list: ['***'] });
});

it('--save-scenario copies no value of a secret-shaped name or of a secret shape, at any depth', async () => {
  const dir = tempDir();
  const planted = {
    merchant_secret_key: 'PLANTmsk-0001',
    x_signing_secret: 'PLANTxss-0002',
    resetPassword: 'PLANTpw-0003',
    webhookSigningKey: 'PLANTwsk-0004',
  };
  const har = file(
    'secrets.har',
    harOf([
      harEntry(
        'payments/initiate',
        {
          currency_code: 'GHS',
          country_code: 'GH',
          amount: '10',
          customer_transaction_id: 'ref-1',
          ...planted,
          meta: { nested: { card_pin: '9876', note: 'provider sk_live_PLANTsk0005 key' } },
          hook: 'whsec_PLANTwh0006',
        },
        { text: JSON.stringify({ success: true, data: { hash_token: 'HASHtoken0000000A1' } }) },
      ),
    ]),
  );
  const out = join(dir, 's.yaml');
  const r = await mpay(['replay', har, '--save-scenario', out], { env: cliEnv(sb, dir) });
  expect(r.code, r.stderr).toBe(0);
  const text = readFileSync(out, 'utf8');
  for (const v of [...Object.values(planted), '9876', 'sk_live_PLANTsk0005', 'whsec_PLANTwh0006'])
    expect(text, v).not.toContain(v);
  // what is not a secret is kept: the scenario still says what was sent
  expect(text).toContain('currency_code: GHS');
  expect(text).toContain('note: provider *** key');
  // a secret-named field is left out at any depth, its name too (withoutSecrets), not only its value
  // masked (the run's secrets, learnt from the trace, would mask that much on their own)
  for (const k of [...Object.keys(planted), 'card_pin']) expect(text, k).not.toContain(k);
  expect(text).toMatch(/nested:/);
});

it('a captured token a later step sends is scrubbed by value from --debug, the HAR and the journal', async () => {
  const dir = tempDir();
  const env = cliEnv({ url: fw.url }, dir);
  const f = file(
    'token-used.yaml',
    `name: a token minted, then sent
steps:
  - name: mint
    request: { method: POST, path: /auth/merchant/token/generate, credentials: true }
    capture: { x: data.token }
  - name: use
    request: { method: GET, path: '/public/countries?x=\${x}' }
  - name: pay
    request:
      method: POST
      path: /payments/processed
      json: { note: '\${x}', hash_token: hash-of-nothing-1, }
`,
  );
  const trace = join(dir, 't.har');
  const before = minted().length;
  const r = await mpay(['run', f, '--debug', '--trace', trace], { env });
  const tokens = minted().slice(before);
  // the step's own, and any the client mints for the money step's credentials
  expect(tokens.length).toBeGreaterThanOrEqual(1);
  const token = tokens[0]!;
  // the later steps did send it: the server saw it in the query and in the body
  expect(fw.requests.some((q) => q.url.includes(token))).toBe(true);
  expect(fw.requests.some((q) => q.body.includes(token))).toBe(true);
  expect(r.stderr).toMatch(/> GET \S*countries\?x=\*\*\*/);
  const har = readFileSync(trace, 'utf8');
  expect(har).toContain('countries?x=***');
  const history = await mpay(['history', '--json', '--wide'], { env });
  expect(history.code, history.stderr).toBe(0);
  // the money step was journaled: under its reference, its body's token scrubbed
  expect(history.stdout).toContain('hash-of-nothing-1');
  const exported = await mpay(['history', 'export'], { env });
  expect(exported.code, exported.stderr).toBe(0);
  expect(exported.stdout).toContain('hash-of-nothing-1');
  // the journal's rows as they are on disk (what the support bundle's journal.ndjson copies, read by a
  // later process that never held the token): the money step's 'sent' line kept its body, scrubbed
  const journal = JSON.stringify(allJournalEvents(dir));
  expect(journal).toContain('"note":"***"');
  for (const t of tokens)
    for (const o of [r.stdout, r.stderr, har, history.stdout, exported.stdout, journal])
      expect(o).not.toContain(t);
});

it("the journal scrubs the run's secrets by value from what a line records, and keeps what names the transaction", () => {
  const cfg = tempDir();
  const secrets = new Secrets();
  const token = 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6';
  secrets.register(token);
  // the sandbox's one-time code, registered when a withdrawal is processed: a reference or a hash token
  // holding it as a word of its own stays whole (resume finds the record by them)
  secrets.register('123456');
  const j = new Journal(cfg, 'default', 'sandbox', { scrub: (data, keep) => secrets.byValue(data, keep) });
  j.append({
    reference: 'ref-123456',
    kind: 'withdraw',
    step: 'processed',
    outcome: 'sent',
    hash_token: 'hash-123456',
    data: {
      amount: '123456',
      note: `sent ${token}`,
      customer_transaction_id: 'ref-123456',
      nested: { [`k-${token}`]: [token], hash_token: 'hash-123456' },
    },
  });
  const [e] = allJournalEvents(cfg);
  expect(e).toMatchObject({ reference: 'ref-123456', hash_token: 'hash-123456' });
  expect(e!.data).toEqual({
    amount: '123456',
    note: 'sent ***',
    customer_transaction_id: 'ref-123456',
    nested: { 'k-***': ['***'], hash_token: 'hash-123456' },
  });
});
