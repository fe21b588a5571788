// No accidental money movement: a dry run leaves nothing on disk (journal, token cache) and sends no
// money-moving request, and every path that would move money in the live environment (the flows,
// --resume and each single step) asks first, or needs --yes without a terminal. Declining is
// `cancelled` (exit 130) with nothing sent. Each case runs the command (in-process, real HTTP; the PTY
// test of a declined confirmation spawns bin/run.js) and then looks at the disk and at the sandbox's own
// strict sandbox (test/strict.ts), which fails the test on any request it did not declare.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Journal } from '../src/journal/journal.js';
import { ScriptedPrompter } from '../src/flows/prompter.js';
import { runPaymentFlow } from '../src/flows/payment/payment.js';
import { statusStep } from '../src/flows/payment/steps.js';
import { demoMerchant } from '../src/sandbox/seed.js';
import {
  apiInitiate,
  apiToken,
  cliEnv,
  customerArgs,
  tempDir,
  demoClient,
  allJournalEvents,
} from './helpers.js';
import { testGate } from './helpers.js';
import { mpay as run } from './in-process.js';
import { strictSandbox, type StrictSandbox as Sb } from './strict.js';

/** Every file under the config folder with its bytes: what "writes nothing" is checked against. */
function diskState(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      // the journal's database by what it records (a read moves bytes of its -shm, the WAL's index)
      else if (/^journal\.db(-wal|-shm)?$/.test(e.name)) continue;
      else if (e.name !== '.lock') out[p.slice(dir.length)] = readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  const events = allJournalEvents(dir);
  if (events.length) out['journal events'] = JSON.stringify(events);
  return out;
}

describe('--dry-run leaves no trace', () => {
  let sb: Sb;
  beforeAll(async () => {
    // the token and reads may go; a request that moves money fails the test unless declared
    sb = await strictSandbox();
    sb.allowReads();
  });
  afterAll(() => sb.close());

  const fresh: Array<[string, string[]]> = [
    ['token', ['token']],
    ['deposit initiate', ['deposit', 'initiate', ...customerArgs({ reference: 'dry-di', gateway: '' })]],
    ['withdraw initiate', ['withdraw', 'initiate', ...customerArgs({ reference: 'dry-wi', gateway: '' })]],
    ['deposit (flow)', ['deposit', ...customerArgs({ reference: 'dry-d' })]],
    ['withdraw (flow)', ['withdraw', ...customerArgs({ reference: 'dry-w' })]],
  ];
  for (const [name, args] of fresh) {
    it(`${name}: no journal, no token cache, nothing sent that moves money; --resume finds nothing`, async () => {
      const cfg = tempDir();
      const r = await run([...args, '--dry-run', '--json'], { env: cliEnv(sb, cfg) });
      expect(r.code, r.stderr).toBe(0);
      expect(r.json()).toMatchObject({ dry_run: true });
      sb.verify();
      expect(diskState(cfg)).toEqual({});
      expect(existsSync(join(cfg, 'journal'))).toBe(false);
      if (name.startsWith('deposit')) {
        const ref = name === 'deposit initiate' ? 'dry-di' : 'dry-d';
        const resumed = await run(['deposit', '--resume', ref, '--json'], { env: cliEnv(sb, cfg) });
        expect(resumed.code).toBe(2);
        expect(resumed.json().error.message).toMatch(/Nothing in the journal/);
        sb.verify();
      }
    });
  }

  it('mpay api --dry-run prints a GET too, and sends nothing at all', async () => {
    const quiet = await strictSandbox();
    try {
      const r = await run(['api', 'GET', '/public/countries', '--dry-run'], {
        env: cliEnv(quiet, tempDir()),
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`curl -sS -g -w '\\n' -X GET '${quiet.url}/restapi/v1/public/countries'`);
      // not even the read: nothing was declared
      quiet.verify();
      // a secret the caller gave (a header, a field the one list of secret names names) is printed as a
      // variable the shell fills in, never as itself (a new user's trial found it in the curl line); its
      // token is fetched, nothing that moves money is sent
      quiet.allowReads();
      const secret = await run(
        [
          'api',
          'POST',
          '/payments/status/update',
          '-f',
          'hash_token=abcdef1234',
          '-f',
          'password=Pw_Secret1',
          '-H',
          'X-Api-Key: SuperSecretHdr1',
          '-H',
          'Cookie: s=CookieVal99',
          '--dry-run',
        ],
        { env: cliEnv(quiet, tempDir()) },
      );
      expect(secret.code, secret.stderr).toBe(0);
      for (const v of ['Pw_Secret1', 'SuperSecretHdr1', 'CookieVal99'])
        expect(secret.stdout).not.toContain(v);
      expect(secret.stdout).toContain(`-H 'x-api-key: '"$MPAY_SECRET_X_API_KEY"`);
      expect(secret.stdout).toContain(`--form-string 'password='"$MPAY_SECRET_PASSWORD"`);
      quiet.verify();
      // a path whose dot segments climb out of /restapi/v1/ (to the sandbox's own routes) is refused
      for (const path of ['/../../_sandbox/requests', '/public/%2e%2e/%2E%2e/_sandbox/requests']) {
        const out = await run(['api', 'GET', path], { env: cliEnv(quiet, tempDir()) });
        expect(out.code, out.stderr).toBe(2);
        expect(out.stderr).toContain("climbs out of the API's path (/restapi/v1/)");
      }
      expect(quiet.forwarded.filter((r) => r.includes('_sandbox'))).toEqual([]);
    } finally {
      await quiet.close();
    }
  });

  it('the single steps on a journaled transaction leave its journal as it was', async () => {
    const cfg = tempDir();
    const env = cliEnv(sb, cfg);
    sb.expect('POST /payments/initiate');
    const started = await run(
      ['deposit', 'initiate', ...customerArgs({ reference: 'dry-steps', gateway: '' }), '--json'],
      {
        env,
      },
    );
    expect(started.code, started.stderr).toBe(0);
    const before = diskState(cfg);
    expect(Object.keys(before).some((f) => f.includes('journal'))).toBe(true);
    sb.verify();
    for (const args of [
      ['status', 'dry-steps', '--status', 'initiated', '--gateway', '1'],
      ['wallet', 'dry-steps', '--gateway', '2'],
      ['deposit', 'process', 'dry-steps'],
      ['deposit', '--resume', 'dry-steps', '--gateway', '1'],
    ]) {
      const r = await run([...args, '--dry-run', '--json'], { env });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.json().dry_run).toBe(true);
    }
    sb.verify();
    expect(diskState(cfg)).toEqual(before);
  });
});

describe('live: nothing moves money unconfirmed', () => {
  let sb: Sb;
  let cfg: string;
  let env: Record<string, string | undefined>;
  beforeAll(async () => {
    sb = await strictSandbox();
    sb.allowReads();
    cfg = tempDir();
    env = cliEnv(sb, cfg, { MPAY_ENV: 'live' });
  });
  afterAll(() => sb.close());

  it('every money path without a terminal and without --yes is refused before anything is sent', async () => {
    // The scene, set up with --yes: a withdrawal stopped at its one-time code, a deposit initiated.
    for (const route of [
      'POST /payments/withdraw/initiate',
      'POST /payments/status/update',
      'POST /payments/withdraw/processed',
      'POST /payments/initiate',
    ])
      sb.expect(route);
    const w = await run(['withdraw', ...customerArgs({ reference: 'live-w' }), '--yes', '--json'], { env });
    expect(w.code, w.stderr).toBe(0);
    expect(w.json().next).toBe('otp');
    const d = await run(
      ['deposit', 'initiate', ...customerArgs({ reference: 'live-d', gateway: '' }), '--yes', '--json'],
      {
        env,
      },
    );
    expect(d.code, d.stderr).toBe(0);
    const hash = d.json().hash_token as string;
    sb.verify();
    const journalBefore = diskState(cfg);
    const paths: string[][] = [
      ['deposit', ...customerArgs({ reference: 'live-new' })],
      ['withdraw', ...customerArgs({ reference: 'live-new-w' })],
      ['deposit', 'initiate', ...customerArgs({ reference: 'live-new-i', gateway: '' })],
      ['withdraw', 'initiate', ...customerArgs({ reference: 'live-new-wi', gateway: '' })],
      ['deposit', '--resume', 'live-d', '--gateway', '1'],
      ['withdraw', '--resume', 'live-w', '--otp', demoMerchant.otp],
      ['withdraw', 'process', 'live-w', '--otp', demoMerchant.otp],
      ['status', hash, '--status', 'failed', '--gateway', '1'],
      ['wallet', hash, '--gateway', '2'],
      ['deposit', 'process', hash],
    ];
    for (const args of paths) {
      const r = await run([...args, '--json'], { env });
      expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(16);
      expect(r.json().error.message).toMatch(
        /^Nothing was sent: .* on the live server http:\/\/127\.0\.0\.1:\d+ \(the run is in the live environment\): pass --yes/,
      );
    }
    sb.verify();
    expect(diskState(cfg)).toEqual(journalBefore);
    // With --yes the same resume goes through.
    sb.expect('POST /payments/withdraw/processed');
    const ok = await run(['withdraw', '--resume', 'live-w', '--otp', demoMerchant.otp, '--yes', '--json'], {
      env,
    });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.json().status).toBe('pending');
    sb.verify();
    // A script of its requests for later moves real money outside the gate: printed only with --yes,
    // under a first line that says so.
    const refused = await run(['history', 'show', 'live-d', '--curl'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/Not printed: .* real money/);
    const printed = await run(['history', 'show', 'live-d', '--curl', '--yes'], { env });
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toMatch(
      /^# LIVE: this moves REAL money on the live server http:\/\/127\.0\.0\.1:\d+/,
    );
    sb.verify();
  });

  it('answering no at the live confirmation is cancelled: exit 130 semantics, nothing sent, nothing journaled', async () => {
    const client = demoClient(sb.url);
    const journal = new Journal(tempDir(), 'default', 'live');
    const p = new ScriptedPrompter([false]);
    const err = await runPaymentFlow(
      'deposit',
      {
        currency: 'GHS',
        country: 'GH',
        amount: '10',
        firstName: 'A',
        lastName: 'B',
        phone: '+233201234567',
        email: 'a@b.co',
        reference: 'live-no',
        gateway: 1,
      },
      { client, journal, prompter: p, env: 'live', gate: testGate('live', { prompter: p }) },
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'cancelled', exitCode: 130 });
    expect((err as Error).message).toMatch(/nothing was sent/);
    expect(p.asked[0]).toMatch(/^LIVE server /);
    sb.verify();
    // A single step asks too (its transaction made behind the front).
    const token = await apiToken(sb.inner.url);
    const hash = (await (await apiInitiate(sb.inner.url, token, 'live-step-no')).json()).data
      .has_token as string;
    const step = await statusStep({ reference: 'live-step-no', kind: 'deposit' }, hash, 1, 'failed', {
      client,
      journal,
      env: 'live',
      // a gate of its own: the step's question is asked anew
      gate: testGate('live', { prompter: new ScriptedPrompter([false]) }),
    }).catch((e: unknown) => e);
    expect(step).toMatchObject({ kind: 'cancelled' });
    sb.verify();
    expect(journal.records()).toEqual([]);
  });
});
