// Replay stops before a money call once a call before it failed (flows/replay/replay.ts), a call the network
// failed (no answer at all: status 0) as much as one the server refused; --keep-going sends them. In this
// process, against a sandbox behind a forwarder that drops the connection of one route.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, customerArgs, file, sandbox, tempDir, mergedHar } from './helpers.js';
import { forwarder } from './forwarder.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

/**
 * A trace of a deposit initiated, its status updated (on `gateway`), the public currencies read, then
 * the deposit processed, as one HAR file.
 */
async function trace(reference: string, gateway = '1'): Promise<string> {
  const cfg = tempDir();
  const env = cliEnv(sb, cfg);
  const parts = ['a', 'b', 'r', 'c'].map((n) => join(cfg, `${n}.har`));
  const d = await mpay(
    ['deposit', 'initiate', ...customerArgs({ reference, gateway: '' }), '--trace', parts[0]!, '--json'],
    {
      env,
    },
  );
  expect(d.code, d.stderr).toBe(0);
  const s = await mpay(
    ['status', reference, '--status', 'initiated', '--gateway', gateway, '--trace', parts[1]!],
    { env },
  );
  expect([0, 4], s.stderr).toContain(s.code);
  const read = await mpay(['currencies', '--trace', parts[2]!], { env });
  expect(read.code, read.stderr).toBe(0);
  const p = await mpay(['deposit', 'process', reference, '--trace', parts[3]!, '--json'], { env });
  expect([0, 5], p.stdout + p.stderr).toContain(p.code);
  return mergedHar(`${reference}.har`, parts);
}

describe('replay after a call the network failed', () => {
  it('sends no money call after it, and says why; --keep-going sends them', async () => {
    const har = await trace('rp-net-1');
    // the read after it fails too: the processed is skipped for the first failure, named as such
    let statusSeen = false;
    const fwd = await forwarder(sb.url, {
      drop: (route) =>
        route.endsWith('/payments/status/update')
          ? (statusSeen = true)
          : statusSeen && route.endsWith('/public/currencies'),
    });
    const routes = () => fwd.seen.map((s) => s.route);
    try {
      const env = cliEnv(undefined, tempDir(), { MPAY_BASE_URL: fwd.url });
      const r = await mpay(['replay', har, '--json'], { env });
      expect(r.code, r.stdout + r.stderr).not.toBe(0);
      const calls = r.json() as { path: string; replayed: { status: number } | null; skipped?: string }[];
      const status = calls.find((c) => c.path === '/payments/status/update')!;
      expect(status.replayed?.status).toBe(0);
      const processed = calls.find((c) => c.path === '/payments/processed')!;
      expect(processed.replayed).toBeNull();
      expect(processed.skipped).toMatch(
        /not sent: call \d \(POST \/payments\/status\/update\) answered otherwise than recorded: .*--keep-going/,
      );
      // what the network said, not an HTTP status (none came), also on stderr as where it stopped
      expect(processed.skipped).toMatch(
        /answered otherwise than recorded: (?!HTTP |no answer)[^;]+; --keep-going/,
      );
      expect(r.stderr).toContain(`mpay: ${processed.skipped!.replace(/^not sent: /, 'stopped: ')}`);
      expect(routes().filter((s) => s.endsWith('/payments/processed'))).toEqual([]);
      expect(routes().filter((s) => s.endsWith('/payments/status/update'))).toHaveLength(1);
      const going = await mpay(['replay', har, '--keep-going', '--json'], { env });
      expect(going.stdout + going.stderr).not.toMatch(/not sent: call/);
      expect(routes().filter((s) => s.endsWith('/payments/processed'))).toHaveLength(1);
    } finally {
      await fwd.close();
    }
  });
});

describe('replay after a call that failed as recorded, but otherwise', () => {
  /** The trace of `reference` with its status update's recorded answer made by `edit`. */
  async function edited(
    reference: string,
    gateway: string,
    edit: (r: { status: number; content: { text?: string } }) => void,
  ) {
    const har = await trace(reference, gateway);
    const doc = JSON.parse(readFileSync(har, 'utf8'));
    for (const e of doc.log.entries)
      if (String(e.request.url).endsWith('/payments/status/update')) edit(e.response);
    writeFileSync(har, JSON.stringify(doc));
    return har;
  }
  const processedOf = (r: { json: () => unknown }) =>
    (r.json() as { path: string; skipped?: string }[]).find((c) => c.path === '/payments/processed')!;

  it('no answer recorded (status 0, as a proxy writes it, with a body) and none again: no money call after it', async () => {
    // the recorded body tells it from the new failure, and by none of the outcomes: a failure answered otherwise
    const har = await edited('rp-net-2', '1', (res) => {
      res.status = 0;
      res.content.text = '{}';
    });
    const fwd = await forwarder(sb.url, { drop: (route) => route.endsWith('/payments/status/update') });
    try {
      const r = await mpay(['replay', har, '--json'], {
        env: cliEnv(undefined, tempDir(), { MPAY_BASE_URL: fwd.url }),
      });
      expect(r.code, r.stdout + r.stderr).toBe(13);
      const status = (r.json() as { path: string; differences: unknown[] }[]).find(
        (c) => c.path === '/payments/status/update',
      )!;
      expect(status.differences).toEqual([{ what: 'body', recorded: 'JSON', replayed: 'not JSON' }]);
      expect(processedOf(r).skipped).toMatch(/^not sent: call \d \(POST \/payments\/status\/update\)/);
      expect(fwd.seen.filter((x) => x.route.endsWith('/payments/processed'))).toEqual([]);
    } finally {
      await fwd.close();
    }
  });

  it('refused without a message: the skipped call names the status alone', async () => {
    // gateway 999: recorded accepted; this server refuses it (422), and its answer says no message
    const har = await edited('rp-422-2', '999', (res) => {
      res.status = 200;
      res.content.text = JSON.stringify({ success: true, message: 'ok', data: { status: 'initiated' } });
    });
    const fwd = await forwarder(sb.url, {
      answer: (route, _sent, text) => {
        if (!route.endsWith('/payments/status/update')) return text;
        const { message: _message, ...rest } = JSON.parse(text) as Record<string, unknown>;
        return JSON.stringify(rest);
      },
    });
    try {
      const r = await mpay(['replay', har, '--json'], {
        env: cliEnv(undefined, tempDir(), { MPAY_BASE_URL: fwd.url }),
      });
      expect(r.code, r.stdout + r.stderr).toBe(13);
      expect(processedOf(r).skipped).toMatch(
        /answered otherwise than recorded: HTTP 422; --keep-going sends the money calls after it$/,
      );
    } finally {
      await fwd.close();
    }
  });
});

describe('replay after a call refused as recorded, with other words', () => {
  it('no money call after it: a refusal is the trace reproduced only when it is the same', async () => {
    // gateway 999: this sandbox refuses the status update (422) when recording and again when replaying;
    // the forwarder changes only the refusal's message
    const har = await trace('rp-422-3', '999');
    const fwd = await forwarder(sb.url, {
      answer: (route, _sent, text) =>
        route.endsWith('/payments/status/update')
          ? JSON.stringify({ ...(JSON.parse(text) as object), message: 'Another refusal' })
          : text,
    });
    try {
      const r = await mpay(['replay', har, '--json'], {
        env: cliEnv(undefined, tempDir(), { MPAY_BASE_URL: fwd.url }),
      });
      expect(r.code, r.stdout + r.stderr).toBe(13);
      const calls = r.json() as {
        path: string;
        replayed: { status: number } | null;
        differences: { what: string }[];
        skipped?: string;
      }[];
      const status = calls.find((c) => c.path === '/payments/status/update')!;
      expect(status.replayed?.status).toBe(422);
      expect(status.differences.map((d) => d.what)).toEqual(['message']);
      const processed = calls.find((c) => c.path === '/payments/processed')!;
      expect(processed.replayed).toBeNull();
      expect(processed.skipped).toMatch(
        /answered otherwise than recorded: HTTP 422 "Another refusal"; --keep-going sends the money calls after it$/,
      );
      expect(fwd.seen.filter((x) => x.route.endsWith('/payments/processed'))).toEqual([]);
    } finally {
      await fwd.close();
    }
  });
});

describe('replay of a transaction whose initiate answered no hash token here', () => {
  it('sends none of its calls, even with --keep-going, and says why', async () => {
    const har = await trace('rp-nohash-1');
    // this server's initiate answers without a hash token
    const fwd = await forwarder(sb.url, {
      answer: (route, _sent, text) =>
        route.endsWith('/payments/initiate') ? JSON.stringify({ success: true, message: 'ok' }) : text,
    });
    try {
      const r = await mpay(['replay', har, '--keep-going', '--json'], {
        env: cliEnv(undefined, tempDir(), { MPAY_BASE_URL: fwd.url }),
      });
      expect(r.code, r.stdout + r.stderr).toBe(13);
      const calls = r.json() as { path: string; replayed: unknown; skipped?: string }[];
      for (const path of ['/payments/status/update', '/payments/processed'])
        expect(calls.find((c) => c.path === path)).toMatchObject({
          replayed: null,
          skipped: 'not sent: the initiate of its transaction did not answer with a hash token here',
        });
      expect(fwd.seen.filter((x) => /status\/update|processed/.test(x.route))).toEqual([]);
    } finally {
      await fwd.close();
    }
  });
});

describe('replay after a call the server refused', () => {
  it('sends the reads after it but no money call; the skipped call keeps its place and is not the same', async () => {
    // gateway 999: the status update is refused (HTTP 422)
    const har = await trace('rp-422-1', '999');
    // #44: a failure answered as recorded is the trace reproduced, and replay goes on; so the recording
    // says the status update was accepted, and the 422 this server gives is a different answer
    const doc = JSON.parse(readFileSync(har, 'utf8'));
    for (const e of doc.log.entries)
      if (String(e.request.url).endsWith('/payments/status/update')) {
        e.response.status = 200;
        e.response.content.text = JSON.stringify({
          success: true,
          message: 'ok',
          data: { status: 'initiated' },
        });
      }
    writeFileSync(har, JSON.stringify(doc));
    const fwd = await forwarder(sb.url);
    try {
      const env = cliEnv(undefined, tempDir(), { MPAY_BASE_URL: fwd.url });
      const r = await mpay(['replay', har, '--json'], { env });
      expect(r.code, r.stdout + r.stderr).toBe(13);
      const calls = r.json() as {
        index: number;
        path: string;
        replayed: { status: number } | null;
        same: boolean;
        skipped?: string;
      }[];
      const paths = calls.map((c) => c.path);
      const at = (path: string) => calls[paths.indexOf(path)]!;
      expect(at('/payments/status/update').replayed?.status).toBe(422);
      // the read after the failure went out and came back
      expect(at('/public/currencies').replayed?.status).toBe(200);
      expect(at('/public/currencies').skipped).toBeUndefined();
      const processed = at('/payments/processed');
      expect(processed.index).toBe(paths.indexOf('/payments/processed') + 1);
      expect(processed).toMatchObject({ replayed: null, same: false, differences: [] });
      const status = at('/payments/status/update');
      expect(processed.skipped).toMatch(
        new RegExp(
          `^not sent: call ${status.index} \\(POST /payments/status/update\\) answered otherwise than recorded: HTTP 422 "Validation failed\\."; --keep-going sends the money calls after it$`,
        ),
      );
      const routes = fwd.seen.map((x) => x.route);
      expect(routes.filter((x) => x.endsWith('/payments/processed'))).toEqual([]);
      expect(routes.filter((x) => x.endsWith('/public/currencies')).length).toBeGreaterThan(0);
    } finally {
      await fwd.close();
    }
  });

  it('on a live server asks once, before anything, naming the calls and how many move money', async () => {
    const har = await trace('rp-live-1');
    const fwd = await forwarder(sb.url);
    try {
      const env = cliEnv(undefined, tempDir(), { MPAY_BASE_URL: fwd.url, MPAY_ENV: 'live' });
      const r = await mpay(['replay', har, '--json'], { env });
      // #47: a live refusal without a terminal has its own code
      expect(r.code).toBe(16);
      // every call of the trace; the initiate, the status update and the processed move money
      const calls = JSON.parse(readFileSync(har, 'utf8')).log.entries.length;
      expect(r.json().error.message).toContain(
        `replay of ${calls} calls from ${har}, 3 of them moving money`,
      );
      expect(fwd.seen).toEqual([]);
    } finally {
      await fwd.close();
    }
  });

  it('on a live server a trace that moves no money, or none that can be sent, is replayed without asking', async () => {
    const dir = tempDir();
    const reads = join(dir, 'reads.har');
    expect((await mpay(['currencies', '--trace', reads], { env: cliEnv(sb, dir) })).code).toBe(0);
    // the trace without its initiate: its status update and processed are never sent
    const whole = JSON.parse(readFileSync(await trace('rp-live-2'), 'utf8'));
    const entries = (whole.log.entries as { request: { url: string } }[]).filter(
      (e) => !e.request.url.endsWith('/payments/initiate'),
    );
    const cut = file('rp-live-cut.har', JSON.stringify({ log: { ...whole.log, entries } }));
    const fwd = await forwarder(sb.url);
    try {
      const env = cliEnv(undefined, tempDir(), { MPAY_BASE_URL: fwd.url, MPAY_ENV: 'live' });
      const r = await mpay(['replay', reads, '--json'], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.json()).toMatchObject([{ path: '/public/currencies', same: true }]);
      const c = await mpay(['replay', cut, '--json'], { env });
      expect(c.code, c.stderr).toBe(13);
      // its reads went out, unasked; no money call did
      const routes = fwd.seen.map((s) => s.route);
      expect(routes.filter((x) => x.includes('/payments/'))).toEqual([]);
      expect(routes).toContain('POST /restapi/v1/auth/merchant/token/generate');
    } finally {
      await fwd.close();
    }
  });
});

describe('replay of a call whose transaction the trace did not start', () => {
  it('sends no call that carries a hash token no earlier initiate of the trace made, and says why', async () => {
    const whole = JSON.parse(readFileSync(await trace('rp-elsewhere-1'), 'utf8'));
    // the trace without its initiate, then with the initiate moved after the calls that use its hash token
    const entries = whole.log.entries as { request: { url: string } }[];
    const isInitiate = (e: { request: { url: string } }) => e.request.url.endsWith('/payments/initiate');
    for (const [name, list] of [
      ['no-initiate', entries.filter((e) => !isInitiate(e))],
      ['initiate-last', [...entries.filter((e) => !isInitiate(e)), ...entries.filter(isInitiate)]],
    ] as const) {
      const har = file(`${name}.har`, JSON.stringify({ log: { ...whole.log, entries: list } }));
      const fwd = await forwarder(sb.url);
      try {
        const r = await mpay(['replay', har, '--keep-going', '--json'], {
          env: cliEnv(undefined, tempDir(), { MPAY_BASE_URL: fwd.url }),
        });
        const calls = r.json() as { path: string; replayed: unknown; skipped?: string }[];
        for (const path of ['/payments/status/update', '/payments/processed']) {
          const c = calls.find((x) => x.path === path)!;
          expect(c.replayed, `${name} ${path}`).toBeNull();
          expect(c.skipped).toBe(
            'not sent: its hash token comes from no initiate of this trace (the transaction was started elsewhere)',
          );
        }
        const routes = fwd.seen.map((x) => x.route);
        expect(
          routes.filter((x) => /status\/update|processed/.test(x)),
          name,
        ).toEqual([]);
      } finally {
        await fwd.close();
      }
    }
  });
});
