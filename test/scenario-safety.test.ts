// mpay run and money, against the strict sandbox (test/strict.ts), which fails on any request a test did
// not declare: a scenario with mistakes sends nothing and says where each is (file:line:column); on a live
// server it is refused without --yes before its first step, reads included; with --yes every money step is
// journaled through the gate as the command's own would be; a file meant for another environment stops
// before anything; a failed money step stops the money steps after it; the substitution happens once; and
// a trace saved as a scenario answers as recorded.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scenarioFailedExitCode } from '../src/common/errors.js';
import { cliEnv, file, sandbox, tempDir, allJournalEvents } from './helpers.js';
import { mpay } from './in-process.js';
import { strictSandbox, type StrictSandbox } from './strict.js';

let sb: StrictSandbox;
beforeEach(async () => {
  sb = await strictSandbox();
});
afterEach(async () => {
  await sb.close();
});

/** Every line of the journals under a config folder: none when nothing was journaled. */
function journalLines(cfg: string): string[] {
  return allJournalEvents(cfg).map((e) => JSON.stringify(e));
}

const initiate = (name: string, reference: string, first = 'Ama') => `  - name: ${name}
    run: deposit initiate
    flags:
      currency: GHS
      country: GH
      amount: "10"
      first-name: "${first}"
      phone: "+233201234567"
      email: ama@example.com
      reference: ${reference}
    capture:
      hash: hash_token
`;

const mistakes = `name: mistakes
vars:
  needed: ~
steps:
${initiate('first, valid', '${run.reference}')}  - name: a kind of step mpay has not
    sleep: 3
  - name: a flag the command has not
    run: status
    args: ["\${hash}"]
    flags: { status: success, gatway: 1 }
  - name: a capture never made
    request: { method: GET, path: "/merchant/currencies?c=\${never}" }
  - name: a cycle
    request: { method: GET, path: "/public/countries?x=\${later}" }
  - name: makes later
    run: countries
    capture: { later: "[0].code" }
  - name: a variable not given
    run: currencies
    expect: { values: { "[0].code": "\${needed}" } }
`;

describe('checked before anything is sent', () => {
  it('each mistake at file:line:column, exit 2, not one request, nothing journaled', async () => {
    const cfg = tempDir();
    const path = file('bad.yaml', mistakes);
    const r = await mpay(['run', path, '--json'], { env: cliEnv(sb, cfg) });
    expect(r.code).toBe(2);
    expect(r.json().error.kind).toBe('usage');
    const lines = r.stderr.split('\n');
    const at = (re: RegExp) => lines.find((l) => re.test(l));
    const text = readFileSync(path, 'utf8').split('\n');
    /** line:column of the first `needle` on the line holding `marker` (both from 1) */
    const where = (marker: string, needle = marker) => {
      const n = text.findIndex((l) => l.includes(marker));
      return `${n + 1}:${text[n]!.indexOf(needle) + 1}`;
    };
    expect(at(/unknown step kind "sleep"/)).toContain(`bad.yaml:${where('sleep:')}: `);
    expect(at(/unknown flag --gatway/)).toContain(`bad.yaml:${where('gatway')}: `);
    expect(at(/\$\{never\} is undefined/)).toContain(`bad.yaml:${where('${never}')}: `);
    expect(
      at(/a cycle: step "a cycle" uses \$\{later\}, captured only by the later step "makes later"/),
    ).toContain(`bad.yaml:${where('x=${later}', '${later}')}: `);
    expect(at(/variable needed is required and not given/)).toContain(
      `bad.yaml:${where('needed: ~', 'needed')}: `,
    );
    // the places themselves, counted by hand: the key of a step, a reference inside a quoted path
    expect(where('sleep:')).toBe('18:5');
    expect(where('${never}')).toBe('24:59');
    sb.verify();
    expect(sb.forwarded).toEqual([]);
    expect(journalLines(cfg)).toEqual([]);
  });

  it('a mistyped step key (`captur:`) is named at its line with the key meant, and brings no other problem', async () => {
    const cfg = tempDir();
    const typo = `name: a typo
steps:
${initiate('the deposit', '${run.reference}').replace('    capture:', '    captur:')}  - name: its status
    run: status
    args: ["\${hash}"]
    flags: { status: success }
`;
    const path = file('typo.yaml', typo);
    const r = await mpay(['run', path], { env: cliEnv(sb, cfg) });
    expect(r.code, r.stderr).toBe(2);
    const line = typo.split('\n').findIndex((l) => l.startsWith('    captur:')) + 1;
    // one problem, the typo: not "${hash} is undefined" after it
    expect(r.stderr).toContain(
      `mpay: Nothing was sent: a problem in the scenario:\n${path}:${line}:5: unknown key "captur" in step "the deposit": did you mean \`capture:\`? (a step's keys: name, run, args, flags, request, capture, expect)\n`,
    );
    expect(r.stderr).not.toMatch(/is undefined/);
    sb.verify();
    expect(sb.forwarded).toEqual([]);
    expect(journalLines(cfg)).toEqual([]);
  });

  it('a YAML mistake is reported by the parser at its line and column', async () => {
    const r = await mpay(['run', file('broken.yaml', 'steps:\n  - name: x\n    run: [currencies\n')], {
      env: cliEnv(sb, tempDir()),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/broken\.yaml:\d+:\d+: /);
    sb.verify();
  });
});

const liveScenario = `name: live
steps:
  - name: a read first
    run: currencies
${initiate('the deposit', '${run.reference}-live')}  - name: the status
    request:
      method: POST
      path: /payments/status/update
      form: { hash_token: "\${hash}", status: initiated, gateway_id: 1 }
`;

describe('on a live server', () => {
  it('without a terminal or --yes: refused before the first step, naming the money steps; nothing sent', async () => {
    const cfg = tempDir();
    const env = cliEnv(undefined, cfg, { MPAY_BASE_URL: sb.url, MPAY_ENV: 'live' });
    const r = await mpay(['run', file('live.yaml', liveScenario)], { env });
    expect(r.code).toBe(16);
    expect(r.stderr).toMatch(
      /Nothing was sent: .*2 money steps \(the deposit, the status\).* live server .*pass --yes/s,
    );
    sb.verify();
    expect(sb.forwarded).toEqual([]);
    expect(journalLines(cfg)).toEqual([]);
  });

  it('with --yes: each money step through the gate, journaled under its transaction, as its command', async () => {
    const cfg = tempDir();
    const env = cliEnv(undefined, cfg, { MPAY_BASE_URL: sb.url, MPAY_ENV: 'live' });
    sb.allowReads();
    sb.expect('POST /payments/initiate');
    sb.expect('POST /payments/status/update');
    const r = await mpay(['run', file('live.yaml', liveScenario), '--yes', '--json'], { env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    sb.verify();
    const reference = `${r.json().scenarios[0].reference}-live`;
    const h = await mpay(['history', 'show', reference, '--json'], { env });
    expect(h.json().steps.map((s: { step: string; outcome: string }) => `${s.step}:${s.outcome}`)).toEqual([
      'initiate:ok',
      'status:ok',
    ]);
  });
});

describe('on a live server, confirmed', () => {
  it('on a terminal: asked once before the first step, naming the money steps; yes sends them all', async () => {
    const env = cliEnv(undefined, tempDir(), { MPAY_BASE_URL: sb.url, MPAY_ENV: 'live' });
    sb.allowReads();
    sb.expect('POST /payments/initiate');
    sb.expect('POST /payments/status/update');
    const yes = await mpay(['run', file('live.yaml', liveScenario)], {
      env,
      tty: true,
      input: 'y\n',
      width: 200,
    });
    expect(yes.code, yes.stdout + yes.stderr).toBe(0);
    // the question as answered: once, for the whole run
    // the question as answered (the prompt's own colours and folding taken out): once, for the whole run
    const plain = stripVTControlCharacters(yes.stderr).replace(/\s+/g, ' ');
    expect(plain.match(/✔ LIVE server/g)).toHaveLength(1);
    expect(plain).toMatch(
      /✔ LIVE server \S+, real money: this scenario run's 2 money steps \(the deposit, the status\)\. Send it\? Yes/,
    );
    expect(yes.stdout).toMatch(/ok {3}3\. the status \[money\]/);
    sb.verify();
  });

  it('a file meant for the sandbox stops at its environment line: exit 2, nothing sent', async () => {
    const cfg = tempDir();
    const env = cliEnv(undefined, cfg, { MPAY_BASE_URL: sb.url, MPAY_ENV: 'live' });
    const r = await mpay(
      ['run', file('env.yaml', `environment: sandbox\n${liveScenario.replace('name: live\n', '')}`), '--yes'],
      {
        env,
      },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /env\.yaml:1:14: .* meant for the sandbox environment; this run is on the live server/,
    );
    sb.verify();
    expect(sb.forwarded).toEqual([]);
  });
});

const afterFailure = (policy: string) => `name: a failed money step
${policy}steps:
  - name: status of a transaction that is not there
    request:
      method: POST
      path: /payments/status/update
      form: { hash_token: "${'0'.repeat(64)}", status: initiated, gateway_id: 1 }
  - name: a read still runs
    run: countries
${initiate('a later deposit', '${run.reference}-after')}`;

describe('a failed money step', () => {
  it('stops every money step after it; the other steps still run; exit 14', async () => {
    const cfg = tempDir();
    sb.allowReads();
    sb.expect('POST /payments/status/update');
    const r = await mpay(['run', file('stop.yaml', afterFailure('')), '--json'], { env: cliEnv(sb, cfg) });
    expect(r.code).toBe(scenarioFailedExitCode);
    const steps = r.json().scenarios[0].steps;
    expect(steps.map((s: { outcome: string }) => s.outcome)).toEqual(['failed', 'passed', 'skipped']);
    expect(steps[0]).toMatchObject({ status: 422, kind: 'validation', money: true });
    expect(steps[2].skipped).toMatch(/the money step "status of a transaction that is not there" failed/);
    sb.verify();
  });

  it('after_money_failure: continue in the file sends them', async () => {
    sb.allowReads();
    sb.expect('POST /payments/status/update');
    sb.expect('POST /payments/initiate');
    const r = await mpay(
      ['run', file('go.yaml', afterFailure('after_money_failure: continue\n')), '--json'],
      {
        env: cliEnv(sb, tempDir()),
      },
    );
    expect(r.code).toBe(scenarioFailedExitCode);
    expect(r.json().scenarios[0].steps.map((s: { outcome: string }) => s.outcome)).toEqual([
      'failed',
      'passed',
      'passed',
    ]);
    sb.verify();
  });
});

describe('substitution once', () => {
  it('a value that holds ${…} is sent and journaled as it is, never read again as a reference', async () => {
    const cfg = tempDir();
    const env = cliEnv(sb, cfg);
    sb.expect('POST /payments/initiate');
    sb.allowReads();
    const path = file(
      'once.yaml',
      `name: once
steps:
  - name: an initiate carrying a note
    request:
      method: POST
      path: /payments/initiate
      credentials: true
      json:
        currency_code: GHS
        country_code: GH
        amount: "10"
        customer_first_name: Ama
        customer_phone: "+233201234567"
        customer_email: ama@example.com
        customer_transaction_id: "once-\${run.reference}"
        note: "\${name}"
`,
    );
    const r = await mpay(['run', path, '--var', 'name=${run.reference}', '--json'], { env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const lines = journalLines(cfg).filter((l) => l.includes(`once-${r.json().scenarios[0].reference}`));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines[0]).toContain('"note":"${run.reference}"');
    sb.verify();
  });
});

describe('replay --save-scenario', () => {
  it('a trace becomes a scenario: no secret, no customer data, the hash captured; it runs as recorded', async () => {
    const rec = await sandbox();
    const cfg = tempDir();
    const har = join(cfg, 'flow.har');
    const usd = ['--currency', 'USD', '--country', 'US', '--amount', '20', '--first-name', 'Kwame'];
    const who = ['--phone', '+15551234567', '--email', 'kwame@example.com', '--gateway', '5'];
    const d = await mpay(['deposit', ...usd, ...who, '--trace', har, '--json'], { env: cliEnv(rec, cfg) });
    expect(d.code, d.stderr).toBe(0);
    await rec.close();
    const out = join(cfg, 'repro.yaml');
    const s = await mpay(['replay', har, '--save-scenario', out], { env: cliEnv(sb, cfg) });
    expect(s.code, s.stderr).toBe(0);
    const text = readFileSync(out, 'utf8');
    for (const leak of [
      'mk_sandbox_demo',
      'ak_sandbox_demo',
      'Kwame',
      'kwame@example.com',
      '+15551234567',
      d.json().hash_token,
    ])
      expect(text).not.toContain(leak);
    expect(text).toContain('hash_token: ${hash_');
    expect(sb.forwarded).toEqual([]);
    sb.allowReads();
    for (const route of ['initiate', 'crypto/wallet/address/update', 'status/update', 'processed'])
      sb.expect(`POST /payments/${route}`);
    const run = await mpay(['run', out, '--json'], { env: cliEnv(sb, tempDir()) });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.json()).toMatchObject({ ok: true, failed: 0 });
    sb.verify();
  });
});

describe('a file meant for the sandbox, on a server a profile keeps as live', () => {
  it('stops at its environment line under --env sandbox too, even with --yes: exit 2, nothing sent', async () => {
    // --env sandbox names the run's environment, not the server's: the server is live (config/live.ts),
    // so a file written for a sandbox never runs there, even confirmed.
    const cfg = tempDir();
    const env = { ...cliEnv(undefined, cfg), MPAY_MERCHANT_KEY: undefined };
    const login = await mpay(
      [
        'login',
        ...['--profile', 'prod', '--env', 'live', '--base-url', sb.url, '--site-id', '1'],
        ...['--no-verify', '--insecure-storage', '--merchant-key', 'mk_live_x', '--api-key', 'ak_live_x'],
      ],
      { env },
    );
    expect(login.code, login.stderr).toBe(0);
    const path = file(
      'sandbox-only.yaml',
      `environment: sandbox\n${liveScenario.replace('name: live\n', '')}`,
    );
    const r = await mpay(['run', path, '--env', 'sandbox', '--base-url', sb.url, '--yes', '--json'], {
      env: cliEnv(undefined, cfg),
    });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.json().error.message).toMatch(
      /sandbox-only\.yaml:1:14: .* meant for the sandbox environment; this run is on the live server .*profile prod keeps it as its live server/,
    );
    sb.verify();
    expect(sb.forwarded).toEqual([]);
    expect(journalLines(cfg)).toEqual([]);
  });
});

describe("a step's record as it is shown", () => {
  it('has the run’s secrets scrubbed from what was sent and from what came back, in --json and on the terminal', async () => {
    sb.allowReads();
    // the API key (a secret of the run, by value) in a query of no secret name; a token in an answer
    const text = `name: secrets
steps:
  - name: a read that carries the key
    request: { method: GET, path: "/public/currencies?q=ak_sandbox_demo" }
  - name: a token
    request: { method: POST, path: /auth/merchant/token/generate, credentials: true }
`;
    const path = file('secrets.yaml', text);
    for (const json of [true, false]) {
      const r = await mpay(['run', path, ...(json ? ['--json'] : [])], { env: cliEnv(sb, tempDir()) });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const shown = r.stdout + r.stderr;
      expect(shown).not.toContain('ak_sandbox_demo');
      if (!json) continue;
      const [read, token] = r.json().scenarios[0].steps;
      expect(read.sent).toBe('GET /public/currencies?q=***');
      expect(JSON.stringify(token.result)).toMatch(/"token":"\*\*\*"/);
      expect(shown).not.toMatch(/"token":"(?!\*\*\*)/);
    }
  });
});
