// `mpay run` as a user runs it, in this process: saved scenarios run again and together, a support bundle
// made a scenario, --save-scenario's file, step names substituted once, and what is refused before sending.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Parser, type FinalResults } from 'tap-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenarioFailedExitCode } from '../src/common/errors.js';
import { cliEnv, file, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

async function tapOf(path: string) {
  const children: FinalResults[] = [];
  const final = await new Promise<FinalResults>((resolve) => {
    const p = new Parser(resolve);
    p.on('child', (c: Parser) => c.on('complete', (res: FinalResults) => children.push(res)));
    p.end(readFileSync(path, 'utf8'));
  });
  return { final, children };
}

describe('saved scenarios run again and together', () => {
  it('two traces saved, one run twice and both together: no reference collides, and again', async () => {
    const cfg = tempDir();
    const env = cliEnv(sb, cfg);
    const hars = [join(cfg, 'a.har'), join(cfg, 'b.har')];
    const usd = ['--currency', 'USD', '--country', 'US', '--amount', '20', '--first-name', 'Kwame'];
    const who = ['--phone', '+15551234567', '--email', 'kwame@example.com', '--gateway', '5'];
    const ghs = ['--currency', 'GHS', '--country', 'GH', '--amount', '12', '--first-name', 'Ama'];
    const ama = ['--phone', '+233201234567', '--email', 'ama@example.com'];
    for (const [har, args] of [
      [hars[0]!, ['deposit', ...usd, ...who]],
      [hars[1]!, ['deposit', 'initiate', ...ghs, ...ama]],
    ] as const) {
      const d = await mpay([...args, '--trace', har, '--json'], { env });
      expect(d.code, d.stderr).toBe(0);
    }
    const [a, b] = [join(cfg, 'a.yaml'), join(cfg, 'b.yaml')];
    for (const [har, out] of [
      [hars[0]!, a],
      [hars[1]!, b],
    ]) {
      const s = await mpay(['replay', har!, '--save-scenario', out!], { env });
      expect(s.code, s.stderr).toBe(0);
    }
    // each file names its initiate \${run.reference}-1: a reference is the file's run's own
    for (const f of [a, b])
      expect(readFileSync(f, 'utf8')).toContain('customer_transaction_id: ${run.reference}-1');
    const tap = join(cfg, 'r.tap');
    const r = await mpay(['run', a, a, b, '--json', '--report', `tap=${tap}`], { env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const doc = r.json();
    expect(doc).toMatchObject({ ok: true, failed: 0 });
    const refs = doc.scenarios.map((s: { reference: string }) => s.reference);
    expect(new Set(refs).size).toBe(3);
    // a file given twice is reported twice: a subtest each run
    const { final, children } = await tapOf(tap);
    expect(final.ok).toBe(true);
    const steps = doc.scenarios.map((s: { steps: unknown[] }) => s.steps.length);
    expect(children.map((c) => [c.ok, c.count])).toEqual(steps.map((n: number) => [true, n]));
    // once more, the same files: the journal holds the first run's references, and none is sent again
    const again = await mpay(['run', a, b, '--json'], { env });
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });

  it('an initiate the API refused because its reference was taken is left out, with why', async () => {
    const cfg = tempDir();
    const env = cliEnv(sb, cfg);
    const args = ['deposit', 'initiate', '--currency', 'GHS', '--country', 'GH', '--amount', '10'];
    const who = ['--first-name', 'Ama', '--phone', '+233201234567', '--email', 'a@example.com'];
    const ref = `taken-${Date.now()}`;
    expect((await mpay([...args, ...who, '--reference', ref], { env })).code).toBe(0);
    const har = join(cfg, 't.har');
    // another machine's journal (a fresh folder) lets it go: the API refuses the reference as taken
    const elsewhere = cliEnv(sb, tempDir());
    const d = await mpay([...args, ...who, '--reference', ref, '--trace', har], { env: elsewhere });
    expect(d.code, d.stderr).toBe(4);
    const out = join(cfg, 't.yaml');
    const s = await mpay(['replay', har, '--save-scenario', out], { env });
    expect(s.code, s.stderr).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text).toMatch(
      /# call 3 \(POST \/payments\/initiate\): left out, the API refused its reference as taken \(recorded 422\)/,
    );
    expect(text).not.toContain('customer_transaction_id');
  });
});

describe('a support bundle becomes a scenario', () => {
  it('from the trace it holds: no secret, no customer data; it runs as recorded', async () => {
    const cfg = tempDir();
    const env = cliEnv(sb, cfg);
    const har = join(cfg, 'flow.har');
    const usd = ['--currency', 'USD', '--country', 'US', '--amount', '20', '--first-name', 'Kwame'];
    const who = ['--phone', '+15551234567', '--email', 'kwame@example.com', '--gateway', '5'];
    expect((await mpay(['deposit', ...usd, ...who, '--trace', har, '--json'], { env })).code).toBe(0);
    const bundle = join(cfg, 'ticket.tar.gz');
    const b = await mpay(['support', 'bundle', '--out', bundle, '--trace-file', har], { env });
    expect(b.code, b.stderr).toBe(0);
    const out = join(cfg, 'from-bundle.yaml');
    const s = await mpay(['replay', bundle, '--save-scenario', out], { env });
    expect(s.code, s.stderr).toBe(0);
    const text = readFileSync(out, 'utf8');
    for (const leak of ['mk_sandbox_demo', 'ak_sandbox_demo', 'Kwame', 'kwame@', '5551234567'])
      expect(text).not.toContain(leak);
    const r = await mpay(['run', out, '--json'], { env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ ok: true, failed: 0, skipped: 0 });
  });
});

describe('--save-scenario', () => {
  it('keeps an existing file unless --force; - is stdout; a step is numbered once', async () => {
    const cfg = tempDir();
    const env = cliEnv(sb, cfg);
    const har = join(cfg, 'c.har');
    expect((await mpay(['currencies', '--trace', har], { env })).code).toBe(0);
    const out = join(cfg, 'edited.yaml');
    writeFileSync(out, '# my edits\n');
    const kept = await mpay(['replay', har, '--save-scenario', out], { env });
    expect(kept.code).toBe(2);
    expect(kept.stderr).toMatch(/edited\.yaml exists: --save-scenario does not replace it/);
    expect(readFileSync(out, 'utf8')).toBe('# my edits\n');
    const forced = await mpay(['replay', har, '--save-scenario', out, '--force'], { env });
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain('- name: GET /public/currencies');
    const dash = await mpay(['replay', har, '--save-scenario', '-'], { env });
    expect(dash.code, dash.stderr).toBe(0);
    expect(dash.stdout).toContain('- name: GET /public/currencies');
    // (relative to this process's folder, where the in-process run writes)
    const made = existsSync('-');
    if (made) rmSync('-');
    expect(made).toBe(false);
    const ran = await mpay(['run', out], { env });
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^ok {3}1\. GET \/public\/currencies: /m);
  });
});

describe('names substituted once, everywhere', () => {
  const named = `name: names
vars: { who: Ama }
steps:
  - name: status for \${who}
    request:
      method: POST
      path: /payments/status/update
      form: { hash_token: "${'0'.repeat(64)}", status: initiated, gateway_id: 1 }
  - name: deposit for \${who}
    run: deposit initiate
    flags: { currency: GHS, country: GH, amount: "10", first-name: "\${who}", phone: "+233201234567", email: a@example.com }
`;

  it('in the live question, the step lines and the skip lines', async () => {
    const path = file('named.yaml', named);
    const live = await mpay(['run', path], {
      env: cliEnv(undefined, tempDir(), { MPAY_BASE_URL: sb.url, MPAY_ENV: 'live' }),
    });
    expect(live.code).toBe(16);
    expect(live.stderr).toMatch(/2 money steps \(status for Ama, deposit for Ama\)/);
    const r = await mpay(['run', path], { env: cliEnv(sb, tempDir()) });
    expect(r.code).toBe(scenarioFailedExitCode);
    expect(r.stdout).toMatch(/^FAIL 1\. status for Ama \[money\]/m);
    expect(r.stdout).toMatch(
      /^skip 2\. deposit for Ama \[money\]: not run: the money step "status for Ama" failed/m,
    );
    expect(r.stdout).not.toContain('${who}');
  });

  it('a capture in a name is refused at its place: a name is shown before its step runs', async () => {
    const path = file(
      'capname.yaml',
      'steps:\n  - name: first\n    run: countries\n    capture: { c: "[0].code" }\n  - name: "second ${c}"\n    run: countries\n',
    );
    const r = await mpay(['run', path], { env: cliEnv(sb, tempDir()) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${path}:5:19: \${c} in the name of step "second \${c}" is not a variable`);
  });
});

describe('refused before anything is sent', () => {
  it('--otp-stdin in a step: file:line:column, exit 2', async () => {
    const path = file(
      'otp.yaml',
      'steps:\n  - name: confirm\n    run: withdraw process\n    args: [abc]\n    flags: { otp-stdin: true }\n',
    );
    const r = await mpay(['run', path, '--json'], { env: cliEnv(sb, tempDir()) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${path}:5:14: step "confirm": --otp-stdin reads stdin, which a step has not`);
  });

  it('a null in --vars FILE is no value: file:line:column, exit 2', async () => {
    const path = file('need.yaml', 'vars: { currency: ~ }\nsteps:\n  - name: x\n    run: countries\n');
    const vars = file('vars.yaml', 'other: 1\ncurrency: null\n');
    const r = await mpay(['run', path, '--vars', vars], { env: cliEnv(sb, tempDir()) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${vars}:2:1: currency has no value (null)`);
  });

  it('--ndjson: a problem in a file is one error record on stdout', async () => {
    const path = file('bad.yaml', 'steps:\n  - name: x\n    sleep: 1\n');
    const r = await mpay(['run', path, '--ndjson'], { env: cliEnv(sb, tempDir()) });
    expect(r.code).toBe(2);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!).error).toMatchObject({
      kind: 'usage',
      message: expect.stringMatching(/bad\.yaml:3:5/),
    });
  });
});

describe('the start line names the server as the live rule judges it', () => {
  it('a URL a profile keeps as its live server is "the live server", whatever the environment is called', async () => {
    const cfg = tempDir();
    const env = cliEnv(sb, cfg, { MPAY_KEYRING: 'off' });
    const login = await mpay(
      ['login', '--profile', 'prod', '--env', 'live', '--base-url', sb.url, '--site-id', '1', '--no-verify'],
      { env: { ...env, MPAY_BASE_URL: undefined } },
    );
    expect(login.code, login.stderr).toBe(0);
    const path = file('read.yaml', 'steps:\n  - name: countries\n    run: countries\n');
    // the default profile in the sandbox environment, sent to the URL profile prod keeps as live
    const r = await mpay(['run', path, '--profile', 'default', '--env', 'sandbox'], { env });
    expect(r.stderr).toMatch(new RegExp(`running .*read\\.yaml: 1 step against the live server ${sb.url};`));
    expect(r.stderr).not.toContain('against sandbox');
    // and a server no profile keeps as live is named by its environment, as before
    const plain = await mpay(['run', path], { env: cliEnv(sb, tempDir()) });
    expect(plain.stderr).toMatch(new RegExp(`against sandbox \\(${sb.url.replace(/\./g, '\\.')}\\)`));
  });
});
