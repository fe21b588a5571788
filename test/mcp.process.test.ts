// `mpay mcp` over a real stdio process (bin/run.js mcp): the SDK's own Client with and without elicitation,
// and once a client written here from the protocol's text (newline-delimited JSON-RPC 2.0), against the
// sandbox and a second sandbox standing for a live server (MPAY_ENV=live).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { resumeCommand } from '../src/flows/standing.js';
import { forTools } from '../src/mcp/tool-errors.js';
import { argumentOf } from '../src/mcp/arguments.js';
import { demoMerchant } from '../src/sandbox/seed.js';
import {
  bin,
  cliEnv,
  customerArgs,
  holdingProxy,
  loginArgs,
  mpayOnPath,
  requestCounts,
  root,
  run,
  runPrinted,
  sandbox,
  tempDir,
  waitUntil,
} from './helpers.js';

type Sb = Awaited<ReturnType<typeof sandbox>>;
let sb: Sb;
let live: Sb;

beforeAll(async () => {
  sb = await sandbox();
  // a second sandbox standing for a live server: the run's environment is live
  live = await sandbox();
});
afterAll(async () => {
  await sb.close();
  await live.close();
});

const customer = (over: Record<string, unknown> = {}) => ({
  currency: 'GHS',
  country: 'GH',
  amount: '25',
  first_name: 'Ama',
  last_name: 'Mensah',
  phone: '+233201234567',
  email: 'ama@example.com',
  gateway: '1',
  ...over,
});

/** The process's environment: only what cliEnv gives and what the child needs to run. */
function childEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: tempDir('mpay-mcp-home-'),
    NO_COLOR: '1',
  };
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

/** The SDK's client on `mpay mcp`, with an elicitation handler or none. */
async function sdkClient(
  env: Record<string, string | undefined>,
  opts: {
    args?: string[];
    elicit?: (message: string) => ElicitResult;
    argv?: string[];
    /** the command and its whole argv, as a client's settings give them (default: node bin/run.js) */
    command?: { command: string; args: string[]; path?: string };
  } = {},
) {
  const transport = new StdioClientTransport({
    command: opts.command?.command ?? process.execPath,
    args: opts.command?.args ?? [bin, ...(opts.argv ?? ['mcp', ...(opts.args ?? [])])],
    env: { ...childEnv(env), ...(opts.command?.path ? { PATH: opts.command.path } : {}) },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client(
    { name: 'mpay-test', version: '1' },
    { capabilities: opts.elicit ? { elicitation: { form: {} } } : {} },
  );
  const asked: string[] = [];
  if (opts.elicit) {
    const answer = opts.elicit;
    client.setRequestHandler(ElicitRequestSchema, (req) => {
      asked.push(req.params.message);
      return answer(req.params.message);
    });
  }
  await client.connect(transport);
  return { client, asked, stderr: () => stderr };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const structured = (r: any) => r.structuredContent as any;

/** A client of the protocol's text alone: JSON-RPC 2.0 messages, one a line, on the child's stdin and stdout. */
function rawClient(env: Record<string, string | undefined>, args: string[] = []) {
  const child = spawn(process.execPath, [bin, 'mcp', ...args], {
    env: childEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  }) as ChildProcessWithoutNullStreams;
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const lines: any[] = [];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const waiters: { test: (m: any) => boolean; resolve: (m: any) => void }[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    stdout += `${line}\n`;
    const m = JSON.parse(line); // a line that is not JSON fails the test: stdout is JSON-RPC only
    lines.push(m);
    for (const w of [...waiters])
      if (w.test(m)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
  });
  const done = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  /** resolves once the server has said `re` on stderr (its log of a call) */
  const said = (re: RegExp) =>
    new Promise<void>((resolve) => {
      const look = () => {
        if (!re.test(stderr)) return;
        child.stderr.off('data', look);
        resolve();
      };
      child.stderr.on('data', look);
      look();
    });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const next = (test: (m: any) => boolean) =>
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    new Promise<any>((resolve) => {
      const seen = lines.find(test);
      if (seen) return resolve(seen);
      waiters.push({ test, resolve });
    });
  let id = 0;
  const send = (m: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
  const request = (method: string, params: object) => {
    const n = ++id;
    send({ id: n, method, params });
    return n;
  };
  const answerOf = (n: number) => next((m) => m.id === n && ('result' in m || 'error' in m));
  return { child, send, request, answerOf, next, done, said, stdout: () => stdout, stderr: () => stderr };
}

async function initialize(c: ReturnType<typeof rawClient>, capabilities: object) {
  const init = await c.answerOf(
    c.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities,
      clientInfo: { name: 'raw', version: '1' },
    }),
  );
  c.send({ method: 'notifications/initialized' });
  return init;
}

async function history(env: Record<string, string | undefined>) {
  const h = await run(['history', '--json'], { env });
  expect(h.code).toBe(0);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return h.json() as any[];
}

describe('a client that knows only the protocol', () => {
  it('lists the tools, reads balances, runs a deposit that history shows and a withdraw whose code it is asked for', async () => {
    const env = cliEnv(sb, tempDir());
    const c = rawClient(env);
    const init = await initialize(c, { elicitation: {} });
    expect(init.result.serverInfo.name).toBe('mpay');
    const list = await c.answerOf(c.request('tools/list', {}));
    const names = list.result.tools.map((t: { name: string }) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['balances', 'deposit', 'withdraw', 'status_update', 'doctor']),
    );
    const deposit = list.result.tools.find((t: { name: string }) => t.name === 'deposit');
    expect(deposit.description).toMatch(/^MOVES MONEY/);
    expect(deposit.inputSchema.required).toEqual(
      expect.arrayContaining(['currency', 'amount', 'first_name', 'phone', 'email']),
    );
    expect(list.result.tools.find((t: { name: string }) => t.name === 'balances').description).toMatch(
      /Moves no money/,
    );

    const balances = await c.answerOf(c.request('tools/call', { name: 'balances', arguments: {} }));
    expect(balances.result.isError).toBeFalsy();
    expect(balances.result.structuredContent.balances.map((x: { code: string }) => x.code)).toContain('GHS');
    expect(JSON.parse(balances.result.content[0].text)[0]).toHaveProperty('total_balance');

    const dep = await c.answerOf(
      c.request('tools/call', { name: 'deposit', arguments: customer({ reference: 'mcp-raw-dep-1' }) }),
    );
    expect(dep.result.isError).toBeFalsy();
    expect(dep.result.structuredContent).toMatchObject({ kind: 'deposit', reference: 'mcp-raw-dep-1' });
    expect(dep.result.structuredContent.data.processed.transaction_id).toBeTruthy();

    // the withdrawal: the server asks for the code through elicitation/create, and the client answers it
    const w = c.request('tools/call', {
      name: 'withdraw',
      arguments: customer({ reference: 'mcp-raw-wd-1', amount: '10' }),
    });
    const ask = await c.next((m) => m.method === 'elicitation/create');
    expect(ask.params.message).toMatch(/one-time code sent to ama@example.com/);
    expect(ask.params.requestedSchema.properties).toHaveProperty('code');
    c.send({ id: ask.id, result: { action: 'accept', content: { code: '123456' } } });
    const wd = await c.answerOf(w);
    expect(wd.result.isError).toBeFalsy();
    expect(wd.result.structuredContent).toMatchObject({
      kind: 'withdraw',
      reference: 'mcp-raw-wd-1',
      next: null,
    });
    expect(wd.result.structuredContent.data.processed.transaction_id).toBeTruthy();
    // the whole flow's result: its initiate too, as `mpay withdraw --json` gives it
    expect(wd.result.structuredContent.data.initiate.customer_transaction_id).toBe('mcp-raw-wd-1');
    // the code is never returned nor logged
    c.child.stdin.end();
    expect(await c.done).toBe(0);
    expect(c.stdout()).not.toMatch(/\b123456\b/);
    expect(c.stderr()).not.toMatch(/\b123456\b/);

    const records = await history(env);
    const dr = records.find((r) => r.reference === 'mcp-raw-dep-1');
    expect(dr).toMatchObject({ kind: 'deposit', via: 'mpay mcp' });
    expect(dr.steps.at(-1)).toMatchObject({ step: 'processed', outcome: 'ok' });
    const wr = records.find((r) => r.reference === 'mcp-raw-wd-1');
    expect(wr).toMatchObject({ kind: 'withdraw', via: 'mpay mcp' });
    expect(wr.steps.at(-1)).toMatchObject({ step: 'processed', outcome: 'ok' });
    // the table says so too
    const table = await run(['history', '--wide'], { env: { ...env, COLUMNS: '300' } });
    expect(table.stdout).toMatch(/deposit \(via mpay mcp\)\s+│\s+mcp-raw-dep-1/);
  });
});

describe('the single steps', () => {
  it('initiate, wallet address, status and processed, each a tool, continue one journaled transaction', async () => {
    const env = cliEnv(sb, tempDir());
    const { client } = await sdkClient(env);
    const { gateway: _g, ...noGateway } = customer({ reference: 'mcp-steps-1' });
    const init = await client.callTool({ name: 'deposit_initiate', arguments: noGateway });
    expect(structured(init)).toMatchObject({ reference: 'mcp-steps-1', status: 'initiated' });
    const offered = structured(init).data.initiate.gateway_configuration.map(
      (c: { gateway: { id: number } }) => String(c.gateway.id),
    );
    const gateway = offered.find((id: string) => id !== '1') ?? offered[0];
    const wallet = await client.callTool({
      name: 'wallet_update',
      arguments: { key: 'mcp-steps-1', gateway },
    });
    expect(wallet.isError, JSON.stringify(wallet)).toBeFalsy();
    expect(structured(wallet).wallet_address).toBeTruthy();
    const status = await client.callTool({
      name: 'status_update',
      arguments: { key: 'mcp-steps-1', status: 'initiated', gateway },
    });
    expect(structured(status).status).toBe('initiated');
    const processed = await client.callTool({
      name: 'deposit_process',
      arguments: { key: 'mcp-steps-1', phone_number: '+233201234567' },
    });
    expect(structured(processed).data.processed.transaction_id).toBeTruthy();
    const one = await client.callTool({ name: 'transaction', arguments: { key: 'mcp-steps-1' } });
    expect(structured(one).steps.map((x: { step: string }) => x.step)).toEqual([
      'initiate',
      'wallet',
      'status',
      'processed',
    ]);
    const listed = await client.callTool({ name: 'history', arguments: { kind: 'deposit', limit: 5 } });
    expect(structured(listed).history[0]).toMatchObject({ reference: 'mcp-steps-1', via: 'mpay mcp' });
    await client.close();
  });
});

describe("the journal's mark", () => {
  it('is of what started a transaction: one a command started and the assistant continued is not marked', async () => {
    const env = cliEnv(sb, tempDir());
    const started = await run(
      ['deposit', 'initiate', ...customerArgs({ reference: 'mcp-cli-started', gateway: '' }), '--json'],
      { env },
    );
    expect(started.code, started.stderr).toBe(0);
    const { client } = await sdkClient(env);
    const r = await client.callTool({
      name: 'deposit_process',
      arguments: { key: 'mcp-cli-started', phone_number: '+233201234567' },
    });
    expect(r.isError, JSON.stringify(r)).toBeFalsy();
    await client.close();
    const record = (await history(env)).find((x) => x.reference === 'mcp-cli-started');
    expect(record.steps.at(-1)).toMatchObject({ step: 'processed', outcome: 'ok' });
    expect(record.via).toBeUndefined();
  });
});

describe("a withdrawal's one-time code", () => {
  it('is taken as an argument, or, from a client that cannot ask, left for withdraw_process', async () => {
    const env = cliEnv(sb, tempDir());
    const { client } = await sdkClient(env);
    const given = await client.callTool({
      name: 'withdraw',
      arguments: customer({ reference: 'mcp-otp-arg', amount: '10', otp: '123456' }),
    });
    expect(structured(given)).toMatchObject({ reference: 'mcp-otp-arg', next: null });
    expect(structured(given).data.processed.transaction_id).toBeTruthy();

    const waiting = await client.callTool({
      name: 'withdraw',
      arguments: customer({ reference: 'mcp-otp-later', amount: '10' }),
    });
    expect(structured(waiting)).toMatchObject({ reference: 'mcp-otp-later', next: 'otp' });
    expect(structured(waiting).message).toMatch(/withdraw_process with key mcp-otp-later and otp/);
    const finished = await client.callTool({
      name: 'withdraw_process',
      arguments: { key: 'mcp-otp-later', otp: '123456' },
    });
    expect(finished.isError).toBeFalsy();
    expect(structured(finished).data.processed.transaction_id).toBeTruthy();
    await client.close();
    const records = await history(env);
    for (const ref of ['mcp-otp-arg', 'mcp-otp-later'])
      expect(records.find((r) => r.reference === ref).steps.at(-1)).toMatchObject({
        step: 'processed',
        outcome: 'ok',
      });
  });
});

describe('a live server', () => {
  const liveEnv = () => cliEnv(live, tempDir(), { MPAY_ENV: 'live' });
  const initiates = async () => (await requestCounts(live))['POST /payments/initiate'] ?? 0;

  it('refuses a money call when the client cannot ask the person: confirmation_required, nothing sent, --yes or not', async () => {
    const before = await initiates();
    const { client } = await sdkClient(liveEnv(), { args: ['--yes'] });
    const r = await client.callTool({
      name: 'deposit',
      arguments: customer({ reference: 'mcp-live-noelicit' }),
    });
    expect(r.isError).toBe(true);
    expect(structured(r).error.kind).toBe('confirmation_required');
    expect(structured(r).error.message).toMatch(/Nothing was sent.*cannot ask/);
    await client.close();
    expect(await initiates()).toBe(before);
  });

  it('sends nothing when the person declines, and names the live server, the amount and the customer in the question', async () => {
    const before = await initiates();
    const { client, asked } = await sdkClient(liveEnv(), { elicit: () => ({ action: 'decline' }) });
    const r = await client.callTool({
      name: 'deposit',
      arguments: customer({ reference: 'mcp-live-decline', amount: '31.50' }),
    });
    expect(r.isError).toBe(true);
    expect(structured(r).error.kind).toBe('cancelled');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain(`LIVE server ${live.url}`);
    expect(asked[0]).toMatch(/deposit of 31\.50 GHS/);
    expect(asked[0]).toMatch(/customer Ama Mensah \(ama@example.com/);
    await client.close();
    // an accept that does not say "send" sends nothing either
    const unsure = await sdkClient(liveEnv(), {
      elicit: () => ({ action: 'accept', content: { send: false } }),
    });
    const r2 = await unsure.client.callTool({
      name: 'deposit',
      arguments: customer({ reference: 'mcp-live-unsure' }),
    });
    expect(structured(r2).error.kind).toBe('cancelled');
    await unsure.client.close();
    expect(await initiates()).toBe(before);
  });

  it("sends doctor's API-key check only on the person's answer: refused without elicitation, no --yes hint", async () => {
    const probes = async () => (await requestCounts(live))['POST /payments/withdraw/initiate'] ?? 0;
    const before = await probes();
    const { client } = await sdkClient(liveEnv(), { args: ['--yes'] });
    const r = await client.callTool({ name: 'doctor', arguments: { check_api_key: true } });
    const key = structured(r).checks.find((c: { name: string }) => c.name === 'API key');
    expect(key.ok).toBe(false);
    expect(key.detail).toMatch(/cannot ask/);
    expect(key.hint).not.toMatch(/--yes/);
    expect(key.hint).toMatch(/elicitation/);
    await client.close();
    expect(await probes()).toBe(before);
  });

  it('ends at a signal, nothing sent, when the client cancelled its call while the person was asked', async () => {
    const before = await initiates();
    const c = rawClient(liveEnv());
    await initialize(c, { elicitation: { form: {} } });
    const n = c.request('tools/call', {
      name: 'deposit',
      arguments: customer({ reference: 'mcp-live-cancel' }),
    });
    await c.next((m) => m.method === 'elicitation/create');
    c.send({ method: 'notifications/cancelled', params: { requestId: n, reason: 'the person went away' } });
    // stdin stays open: only the server's own end lets the process go
    c.child.kill('SIGTERM');
    expect(await c.done).toBe(0);
    expect(await initiates()).toBe(before);
  });

  it('ends at the end of input while the person is asked: the question withdrawn, nothing sent, exit 0', async () => {
    const before = await initiates();
    const c = rawClient(liveEnv());
    await initialize(c, { elicitation: { form: {} } });
    const n = c.request('tools/call', {
      name: 'deposit',
      arguments: customer({ reference: 'mcp-live-eof' }),
    });
    await c.next((m) => m.method === 'elicitation/create');
    c.child.stdin.end();
    const answer = await c.answerOf(n);
    expect(answer.result.structuredContent.error.kind).toBe('cancelled');
    expect(await c.done).toBe(0);
    expect(await initiates()).toBe(before);
  });

  it('sends once when the person accepts', async () => {
    const before = await initiates();
    const env = liveEnv();
    const { client, asked } = await sdkClient(env, {
      elicit: () => ({ action: 'accept', content: { send: true } }),
    });
    const r = await client.callTool({
      name: 'deposit',
      arguments: customer({ reference: 'mcp-live-accept' }),
    });
    expect(r.isError).toBeFalsy();
    expect(structured(r).reference).toBe('mcp-live-accept');
    expect(asked).toHaveLength(1);
    await client.close();
    expect(await initiates()).toBe(before + 1);
    expect((await history(env)).find((x) => x.reference === 'mcp-live-accept')).toMatchObject({
      via: 'mpay mcp',
    });
  });
});

describe('no secret in any message', () => {
  it('keeps the keys, the bearer token and the one-time code out of stdout and stderr, with --debug', async () => {
    const dir = tempDir();
    const env = cliEnv(sb, dir, { MPAY_DEBUG: '1' });
    const { client, stderr, asked } = await sdkClient(env, {
      elicit: (m) =>
        /one-time code/.test(m) ? { action: 'accept', content: { code: '123456' } } : { action: 'decline' },
    });
    const messages: string[] = [JSON.stringify(client.getInstructions() ?? '')];
    const tools = await client.listTools();
    messages.push(JSON.stringify(tools));
    for (const [name, args] of [
      ['balances', {}],
      ['doctor', {}],
      ['withdraw', customer({ reference: 'mcp-secret-wd', amount: '10' })],
      ['transaction', { key: 'mcp-secret-wd' }],
      ['history', {}],
      ['deposit', customer({ amount: 'x' })],
      // a client that echoes a secret back (as an argument's name, a tool's name) does not get it again
      ['deposit', customer({ [demoMerchant.apiKey]: 'x' })],
      [demoMerchant.merchantKey, {}],
    ] as const)
      messages.push(JSON.stringify(await client.callTool({ name, arguments: args })));
    await client.close();
    // the questions the server sent (the one-time code's) are messages too
    expect(asked.length).toBeGreaterThan(0);
    const all = `${messages.join('\n')}\n${asked.join('\n')}\n${stderr()}`;
    expect(stderr()).toMatch(/POST .*withdraw\/processed/); // --debug did log the requests
    // the bearer token the run used, as its cache keeps it
    const tokens = [...readFileSync(join(dir, 'tokens.json'), 'utf8').matchAll(/"token":\s*"([^"]+)"/g)].map(
      (m) => m[1]!,
    );
    expect(tokens.length).toBeGreaterThan(0);
    for (const secret of [demoMerchant.merchantKey, demoMerchant.apiKey, '123456', ...tokens])
      expect(all).not.toMatch(new RegExp(`\\b${secret}\\b`));
    expect(all).not.toMatch(/Bearer\s+(?!\*\*\*)[A-Za-z0-9._~+/=-]{6,}/);
    expect(all).toMatch(/mcp-secret-wd/);
  });
});

describe('--read-only', () => {
  it('lists no money tool, refuses one by name, and runs doctor without its API-key check', async () => {
    const before = await requestCounts(sb);
    const { client } = await sdkClient(cliEnv(sb, tempDir()), { args: ['--read-only'] });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      ['balances', 'countries', 'currencies', 'doctor', 'history', 'transaction'].sort(),
    );
    expect(tools.every((t) => !/MOVES MONEY/.test(t.description ?? ''))).toBe(true);
    const refused = await client.callTool({ name: 'deposit', arguments: customer() });
    expect(refused.isError).toBe(true);
    expect(structured(refused).error.message).toMatch(/read-only/);
    const doctor = await client.callTool({ name: 'doctor', arguments: {} });
    const key = structured(doctor).checks.find((c: { name: string }) => c.name === 'API key');
    expect(key).toMatchObject({ ok: true, skipped: true });
    await client.close();
    const after = await requestCounts(sb);
    expect(after['POST /payments/withdraw/initiate'] ?? 0).toBe(
      before['POST /payments/withdraw/initiate'] ?? 0,
    );
    expect(after['POST /payments/initiate'] ?? 0).toBe(before['POST /payments/initiate'] ?? 0);
  });
});

describe('the end of input, or a signal, during a money call', () => {
  // As the CLI's first Ctrl-C: the request in flight finishes and is journaled, no step starts after it,
  // the call is answered with where the transaction stands, and stderr names it at once.
  const ends: [string, (c: ReturnType<typeof rawClient>) => void][] = [
    ['the end of input', (c) => void c.child.stdin.end()],
    ['SIGTERM', (c) => void c.child.kill('SIGTERM')],
    // a client's close(): end of input, then SIGTERM; the signal is that same ending, and says so
    [
      'SIGTERM after the end of input',
      (c) => {
        c.child.stdin.end();
        void c.said(/end of input: finishing/).then(() => c.child.kill('SIGTERM'));
      },
    ],
  ];
  it.each(ends)(
    '%s: the initiate in flight finishes and is journaled, nothing after it is sent, the answer and stderr say how to continue',
    async (how, end) => {
      const own = await sandbox();
      const proxy = await holdingProxy(own.url, '/initiate');
      try {
        const env = cliEnv(own, tempDir(), { MPAY_BASE_URL: proxy.url });
        const c = rawClient(env);
        await initialize(c, {});
        const reference = `mcp-end-${how.replace(/\W/g, '')}`;
        const n = c.request('tools/call', { name: 'deposit', arguments: customer({ reference }) });
        await waitUntil('the initiate request held', () => proxy.held() === 1);
        end(c);
        // stderr names the transaction and the continuation while the request is still in flight
        await c.said(new RegExp(`the initiate request of ${reference} is in flight`));
        if (how === 'SIGTERM after the end of input')
          await c.said(/SIGTERM after the end of input: the same ending; 1 call in flight/);
        expect(c.stderr()).toMatch(/`mpay deposit --resume [^`]+`/);
        proxy.release();
        const answer = await c.answerOf(n);
        expect(answer.result.isError).toBe(true);
        const error = answer.result.structuredContent.error;
        expect(error.kind).toBe('cancelled');
        expect(error.message).toMatch(
          new RegExp(
            `${reference} was stopped after what was sent: initiate \\(ok\\); nothing more was sent`,
          ),
        );
        expect(error.hint).toMatch(new RegExp(`status_update tool with key ${reference}`));
        expect(await c.done).toBe(0);
        // the journal has the answered step, and nothing after it was sent
        const r = (await history(env)).find((x) => x.reference === reference);
        expect(r.steps.map((s: { step: string }) => s.step)).not.toContain('status');
        expect(r.steps.at(-1).outcome).not.toBe('sent');
        const counts = await requestCounts(own);
        expect(counts['POST /payments/initiate']).toBe(1);
        expect(Object.keys(counts).filter((k) => /status|process|wallet/.test(k))).toEqual([]);
        // the command the answer names runs as printed, and finishes the deposit
        const cli = /from a shell: `([^`]+)`/.exec(error.hint)![1]!;
        const resumed = await runPrinted(cli, env, 'bash');
        expect(resumed.code, resumed.stderr).toBe(0);
        const after = (await history(env)).find((x) => x.reference === reference);
        expect(after.steps.at(-1)).toMatchObject({ step: 'processed', outcome: 'ok' });
      } finally {
        proxy.release();
        await proxy.close();
        await own.close();
      }
    },
  );

  it("the SDK client's close() on a slow server: the step in flight is journaled with its answer, none after it is sent, stderr names the transaction", async () => {
    const slow = await sandbox({ latencyMs: 400 });
    try {
      const env = cliEnv(slow, tempDir());
      const { client, stderr } = await sdkClient(env);
      const reference = 'mcp-sdk-close';
      const call = client
        .callTool({ name: 'deposit', arguments: customer({ reference }) })
        .catch((e: unknown) => e);
      await waitUntil(
        'the initiate sent',
        async () => ((await requestCounts(slow))['POST /payments/initiate'] ?? 0) === 1,
      );
      await client.close();
      await call;
      const r = (await history(env)).find((x) => x.reference === reference);
      expect(r.steps.at(-1).outcome).not.toBe('sent');
      const counts = await requestCounts(slow);
      expect(Object.keys(counts).filter((k) => /status|process/.test(k))).toEqual([]);
      expect(stderr()).toMatch(new RegExp(`end of input: finishing the 1 call`));
      expect(stderr()).toMatch(new RegExp(`${reference}[^\n]*\`mpay deposit --resume ${reference}[^\`]*\``));
      expect(stderr()).toMatch(new RegExp(`tool error: cancelled: [^\n]*${reference} was stopped`));
    } finally {
      await slow.close();
    }
  });

  it.each([
    ['the end of input', (c: ReturnType<typeof rawClient>) => void c.child.stdin.end()],
    ['SIGINT', (c: ReturnType<typeof rawClient>) => void c.child.kill('SIGINT')],
  ])(
    "%s at a withdrawal's code question: the answer says what was sent and how to continue, with the code",
    async (how, end) => {
      const env = cliEnv(sb, tempDir());
      const c = rawClient(env);
      await initialize(c, { elicitation: {} });
      const reference = `mcp-otp-end-${how.replace(/\W/g, '')}`;
      const n = c.request('tools/call', {
        name: 'withdraw',
        arguments: customer({ reference, amount: '10' }),
      });
      await c.next((m) => m.method === 'elicitation/create');
      end(c);
      const answer = await c.answerOf(n);
      const error = answer.result.structuredContent.error;
      expect(error.kind).toBe('cancelled');
      expect(error.message).not.toMatch(/nothing was sent/);
      expect(error.message).toMatch(
        new RegExp(
          `${reference} was stopped after what was sent: initiate \\(ok\\), status \\(ok\\), otp \\(ok\\)`,
        ),
      );
      expect(error.hint).toMatch(new RegExp(`withdraw_process tool with key ${reference} and the code`));
      expect(await c.done).toBe(0);
      expect(c.stderr()).toMatch(new RegExp(`withdraw: ${reference} stands after its otp \\(ok\\)`));
      expect(c.stderr()).toMatch(
        /tool error: cancelled: [^\n]*otp \(ok\)[^\n]*from a shell: `mpay withdraw --resume/,
      );
      // the command line, with the code on stdin, finishes the withdrawal
      const cli = /from a shell: `([^`]+)`/.exec(error.hint)![1]!;
      expect(cli).toMatch(/--otp-stdin/);
      const done = await runPrinted(`printf %s 123456 | ${cli}`, env, 'bash');
      expect(done.code, done.stderr).toBe(0);
      const r = (await history(env)).find((x) => x.reference === reference);
      expect(r.steps.at(-1)).toMatchObject({ step: 'processed', outcome: 'ok' });
    },
  );
});

describe('bad input', () => {
  it('names the argument or tool in a tool error, and sends nothing', async () => {
    const before = await requestCounts(sb);
    const { client } = await sdkClient(cliEnv(sb, tempDir()));
    const err = async (name: string, args: Record<string, unknown>) => {
      const r = await client.callTool({ name, arguments: args });
      expect(r.isError).toBe(true);
      return structured(r).error;
    };
    const unknownTool = await err('depost', customer());
    expect(unknownTool).toMatchObject({ kind: 'usage', fields: { name: ['unknown tool'] } });
    expect(unknownTool.hint).toMatch(/deposit/);
    expect((await err('deposit', customer({ amout: '5' }))).fields).toEqual({
      amout: ['not an argument of deposit'],
    });
    const { amount: _a, ...noAmount } = customer();
    expect((await err('deposit', noAmount)).fields).toEqual({ amount: ['required'] });
    const bad = await err('deposit', customer({ amount: '-5' }));
    expect(Object.keys(bad.fields)).toEqual(['amount']);
    expect(bad.message).toMatch(/amount/);
    expect((await err('status_update', { key: 'abcdefgh12', status: 'done' })).fields).toHaveProperty(
      'status',
    );
    expect((await err('withdraw', customer({ otp: '12' }))).fields).toHaveProperty('otp');
    // a value only the flow can judge: the currency is none of the merchant's
    const currency = await err('deposit', customer({ currency: 'XYZ' }));
    expect(currency.fields).toHaveProperty('currency');
    expect(currency.message).not.toMatch(/--currency/);
    await client.close();
    const after = await requestCounts(sb);
    for (const route of Object.keys(after).filter((k) => k.startsWith('POST /payments')))
      expect(after[route]).toBe(before[route]);
  });
});

describe('docs/mcp.md', () => {
  it('starts mpay as its settings snippet says, and names every tool the server lists', async () => {
    const doc = readFileSync(join(root, 'docs', 'mcp.md'), 'utf8');
    const snippets = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!));
    const { mpay } = snippets[0].mcpServers;
    expect(mpay.command).toBe('mpay');
    // as written: `mpay` found on the PATH the client gives (where `npm link` puts it), no alias
    const { client } = await sdkClient(cliEnv(sb, tempDir()), {
      command: { command: mpay.command, args: mpay.args, path: mpayOnPath() },
    });
    const { tools } = await client.listTools();
    const balances = await client.callTool({ name: 'balances', arguments: {} });
    expect(structured(balances).balances.length).toBeGreaterThan(0);
    await client.close();
    // the same without installing: node and the clone's bin/run.js, its path the reader's own
    const direct = snippets.find((x) => x.mcpServers.mpay?.command === 'node').mcpServers.mpay;
    expect(direct.args[0]).toBe('/home/you/mpay/bin/run.js');
    const { client: viaNode } = await sdkClient(cliEnv(sb, tempDir()), {
      command: {
        command: direct.command,
        args: [direct.args[0].replace('/home/you/mpay', root.replace(/\/$/, '')), ...direct.args.slice(1)],
      },
    });
    const again = await viaNode.callTool({ name: 'balances', arguments: {} });
    expect(structured(again).balances.length).toBeGreaterThan(0);
    await viaNode.close();
    for (const t of tools) expect(doc).toContain(`| \`${t.name}\``);
    expect(snippets[1].mcpServers['mpay-readonly'].args).toEqual(['mcp', '--read-only']);
  });

  it("the sandbox snippet names its profile: after a live login made another profile current, the sandbox's own credentials go to the sandbox", async () => {
    const doc = readFileSync(join(root, 'docs', 'mcp.md'), 'utf8');
    const snippets = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!));
    const { mpay } = snippets[0].mcpServers;
    expect(mpay.args).toContain('--profile');
    const name = mpay.args[mpay.args.indexOf('--profile') + 1];
    // the login the doc gives for the sandbox, then a login that makes another profile (another server) current
    const dir = tempDir();
    const login =
      /\(`(printf %s mk_sandbox_demo \| MPAY_API_KEY=ak_sandbox_demo mpay login --profile [^`]+)`\)/.exec(
        doc.replace(/\n/g, ' '),
      );
    expect(login, 'the doc gives the sandbox login').not.toBeNull();
    const env = { MPAY_CONFIG_DIR: dir, MPAY_KEYRING: 'off' };
    const stored = await runPrinted(login![1]!.replace('http://127.0.0.1:4010', sb.url), env, 'bash');
    expect(stored.code, stored.stderr).toBe(0);
    const prod = await run(loginArgs('prod', live.url), {
      env: cliEnv(undefined, dir, { MPAY_KEYRING: 'off' }),
    });
    expect(prod.code, prod.stderr).toBe(0);
    // every request the live server has had so far: none more may come from the sandbox's snippet
    const total = async () => Object.values(await requestCounts(live)).reduce((x, y) => x + y, 0);
    const before = await total();
    // the client passes only the snippet's env: the config folder and the keyring go there, as the doc says
    expect(doc).toMatch(/"env": \{ "MPAY_CONFIG_DIR": [^}]*"MPAY_KEYRING": "off" \}/);
    const { client, stderr } = await sdkClient(env, {
      command: { command: mpay.command, args: mpay.args, path: mpayOnPath() },
    });
    const balances = await client.callTool({ name: 'balances', arguments: {} });
    expect(structured(balances).balances.length).toBeGreaterThan(0);
    await client.close();
    expect(stderr()).toMatch(
      new RegExp(`config folder ${dir}, profile ${name}, environment sandbox, server ${sb.url}`),
    );
    expect(await total()).toBe(before);
    // without --profile, the current profile (prod) is the one used: what the doc warns of
    const { client: bare, stderr: bareErr } = await sdkClient(env, {
      command: { command: mpay.command, args: ['mcp', '--env', 'sandbox'], path: mpayOnPath() },
    });
    await bare.close();
    expect(bareErr()).toMatch(/profile prod,/);
  });
});

describe('mpay mcp --help', () => {
  it('gives examples that each start a server answering tools/list, as written', async () => {
    const help = await run(['mcp', '--help'], {});
    const examples = help.stdout
      .slice(help.stdout.indexOf('EXAMPLES'))
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.startsWith('$ mpay mcp'))
      .map((l) => l.slice('$ mpay '.length).split(' '));
    expect(examples.map((e) => e.join(' '))).toContain('mcp --read-only --profile acme --env live');
    for (const argv of examples) {
      const { client } = await sdkClient(cliEnv(sb, tempDir()), { argv });
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('balances');
      expect(names.includes('deposit')).toBe(!argv.includes('--read-only'));
      await client.close();
    }
  });
});

describe('once the server is ending', () => {
  const noGateway = (over: Record<string, unknown>) => {
    const { gateway: _g, ...rest } = customer(over);
    return rest;
  };

  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s: a new call is refused (cancelled, nothing sent) while the call in flight finishes, journaled',
    async (sig) => {
      const proxy = await holdingProxy(sb.url, '/processed');
      try {
        const env = cliEnv(sb, tempDir(), { MPAY_BASE_URL: proxy.url });
        const c = rawClient(env);
        await initialize(c, {});
        const first = `mcp-ending-first-${sig}`;
        const late = `mcp-ending-late-${sig}`;
        const n = c.request('tools/call', { name: 'deposit', arguments: customer({ reference: first }) });
        await waitUntil('the processed request held', () => proxy.held() === 1);
        c.child.kill(sig);
        // the log says what ended it, not "end of input"
        await c.said(new RegExp(`${sig}: finishing the 1 call in flight`));
        const m = c.request('tools/call', {
          name: 'deposit_initiate',
          arguments: noGateway({ reference: late }),
        });
        const refused = await c.answerOf(m);
        expect(refused.result.isError).toBe(true);
        expect(refused.result.structuredContent.error.kind).toBe('cancelled');
        expect(refused.result.structuredContent.error.message).toMatch(
          new RegExp(`server is ending \\(${sig}\\).*nothing was sent`),
        );
        // a read is refused too
        const read = await c.answerOf(c.request('tools/call', { name: 'balances', arguments: {} }));
        expect(read.result.structuredContent.error.kind).toBe('cancelled');
        proxy.release();
        const done = await c.answerOf(n);
        expect(done.result.isError, JSON.stringify(done)).toBeFalsy();
        expect(done.result.structuredContent.data.processed.transaction_id).toBeTruthy();
        expect(await c.done).toBe(0);
        expect(c.stderr()).not.toMatch(/end of input/);
        const records = await history(env);
        expect(records.find((r) => r.reference === late)).toBeUndefined();
        expect(records.find((r) => r.reference === first).steps.at(-1)).toMatchObject({
          step: 'processed',
          outcome: 'ok',
        });
      } finally {
        await proxy.close();
      }
    },
  );

  it('a second signal ends it at once, naming the transaction left in flight and the command that tells where it stands', async () => {
    const proxy = await holdingProxy(sb.url, '/processed');
    try {
      const env = cliEnv(sb, tempDir(), { MPAY_BASE_URL: proxy.url });
      const c = rawClient(env);
      await initialize(c, {});
      c.request('tools/call', { name: 'deposit', arguments: customer({ reference: 'mcp-second-signal' }) });
      await waitUntil('the processed request held', () => proxy.held() === 1);
      c.child.kill('SIGINT');
      await c.said(/SIGINT: finishing/);
      c.child.kill('SIGINT');
      expect(await c.done).toBe(130);
      const said =
        /the processed request of mcp-second-signal was in flight[^\n]*`(mpay history show [^`]+)` tells where it stands/.exec(
          c.stderr(),
        );
      expect(said, c.stderr()).not.toBeNull();
      // the command runs as printed, and shows the processed request sent, its answer unknown
      const shown = await runPrinted(said![1]!, env, 'bash');
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toMatch(/mcp-second-signal/);
      expect(shown.stdout).toMatch(/processed/);
    } finally {
      proxy.release();
      await proxy.close();
    }
  });
});

describe('the start-up line', () => {
  it('names the config folder, the profile as stored (or not), the environment and the server, and says LIVE when it is', async () => {
    const dir = tempDir();
    const c = rawClient(cliEnv(sb, dir));
    await c.said(
      new RegExp(
        `serving 14 tools on stdio: config folder ${dir}, profile default not stored \\(credentials from the environment\\), environment sandbox, server ${sb.url};`,
      ),
    );
    expect(c.stderr()).not.toMatch(/LIVE/);
    c.child.stdin.end();
    expect(await c.done).toBe(0);
    const l = rawClient(cliEnv(live, tempDir(), { MPAY_ENV: 'live' }), ['--read-only']);
    await l.said(/serving 6 tools on stdio \(read-only\): config folder [^,]+, profile default not stored/);
    await l.said(new RegExp(`environment live, server ${live.url} \\(LIVE: [^)]*\\); stdout`));
    // read-only: no money call, so none asks the person
    expect(l.stderr()).not.toMatch(/each money call asks/);
    l.child.stdin.end();
    expect(await l.done).toBe(0);
    const w = rawClient(cliEnv(live, tempDir(), { MPAY_ENV: 'live' }));
    await w.said(/\(LIVE: [^)]*; each money call asks the person first\)/);
    w.child.stdin.end();
    expect(await w.done).toBe(0);
  });

  it('with no profile stored and no credentials in the environment, says so and what to run, not "profile default"', async () => {
    const dir = tempDir();
    const c = rawClient({ MPAY_CONFIG_DIR: dir, MPAY_BASE_URL: sb.url });
    await c.said(/serving 14 tools/);
    const said =
      /config folder ([^,]+), no profile is stored there \(`(mpay login --profile default)` stores one/.exec(
        c.stderr(),
      );
    expect(said, c.stderr()).not.toBeNull();
    expect(said![1]).toBe(dir);
    expect(c.stderr()).not.toMatch(/profile default,/);
    c.child.stdin.end();
    expect(await c.done).toBe(0);
    // the command it names, run as printed (with the same folder), stores the profile a next start names
    const login = await runPrinted(
      `printf %s '${demoMerchant.merchantKey}' | ${said![2]} --env sandbox --base-url ${sb.url} --site-id 1 --no-verify --merchant-key-stdin`,
      { MPAY_CONFIG_DIR: dir, MPAY_API_KEY: demoMerchant.apiKey },
      'bash',
    );
    expect(login.code, login.stderr).toBe(0);
    const again = rawClient({ MPAY_CONFIG_DIR: dir });
    await again.said(
      new RegExp(`config folder ${dir}, profile default, environment sandbox, server ${sb.url}`),
    );
    again.child.stdin.end();
    expect(await again.done).toBe(0);
  });

  it('a profile in MPAY_PROFILE that does not exist fails at start, as any command does', async () => {
    const dir = tempDir();
    const made = await run(loginArgs('acme', sb.url), { env: cliEnv(undefined, dir) });
    expect(made.code, made.stderr).toBe(0);
    const env = { MPAY_CONFIG_DIR: dir, MPAY_PROFILE: 'acm' };
    const balances = await run(['balances'], { env });
    expect(balances.code).not.toBe(0);
    const served = await run(['mcp'], { env });
    expect(served.code).toBe(balances.code);
    expect(served.stderr).toMatch(/No profile named "acm"/);
    expect(served.stdout).toBe('');
    // no profile stored at all: the server does not start to fail every call for want of credentials
    const fresh = { MPAY_CONFIG_DIR: tempDir(), MPAY_PROFILE: 'acme' };
    const nothing = await run(['balances'], { env: fresh });
    const none = await run(['mcp'], { env: fresh });
    expect(none.code).toBe(nothing.code);
    expect(none.stderr).toMatch(/No profile named "acme"; no profile is stored here/);
    expect(none.stderr).toMatch(/`mpay login --profile acme` makes a new one/);
    expect(none.stdout).toBe('');
  });
});

describe('hints that name a command', () => {
  it('a wrong one-time code: the hint names withdraw_process and otp, each command kept runs as printed, and the tool named finishes it', async () => {
    const env = cliEnv(sb, tempDir());
    const { client } = await sdkClient(env);
    const r = await client.callTool({
      name: 'withdraw',
      arguments: customer({ reference: 'mcp-wrong-otp', amount: '10', otp: '999999' }),
    });
    expect(r.isError).toBe(true);
    const { message, hint } = structured(r).error;
    expect(hint).toMatch(/withdraw_process tool with key mcp-wrong-otp and the code as otp/);
    // no command line with its flags rewritten
    expect(`${message} ${hint}`).not.toMatch(/ otp <CODE>/);
    for (const [, line] of `${message} ${hint}`.matchAll(/`(mpay [^`]+)`/g)) {
      const ran = await runPrinted(line!, env, 'bash');
      expect(ran.code, `${line}\n${ran.stderr}`).not.toBe(2);
    }
    const done = await client.callTool({
      name: 'withdraw_process',
      arguments: { key: 'mcp-wrong-otp', otp: '123456' },
    });
    expect(done.isError, JSON.stringify(done)).toBeFalsy();
    expect(structured(done).data.processed.transaction_id).toBeTruthy();
    await client.close();
  });

  it('a CLI command no tool replaces is kept whole, its flags unrewritten, and runs as printed', async () => {
    const env = cliEnv(sb, tempDir());
    const { client } = await sdkClient(env);
    const { gateway: _g, ...noGateway } = customer({ reference: 'mcp-kept-command' });
    const init = await client.callTool({ name: 'deposit_initiate', arguments: noGateway });
    expect(init.isError, JSON.stringify(init)).toBeFalsy();
    await client.close();
    const gateway = String(structured(init).data.initiate.gateway_configuration[0].gateway.id);
    const printed = resumeCommand({ kind: 'deposit', reference: 'mcp-kept-command' }, undefined, [
      '--gateway',
      gateway,
      '--phone-number',
      '+233201234567',
    ]);
    const said = forTools(`continue with \`${printed}\``, argumentOf);
    expect(said).toBe(`continue with \`${printed}\``);
    const ran = await runPrinted(/`([^`]+)`/.exec(said)![1]!, env, 'bash');
    expect(ran.code, ran.stderr).toBe(0);
    const r = (await history(env)).find((x) => x.reference === 'mcp-kept-command');
    expect(r.steps.at(-1)).toMatchObject({ step: 'processed', outcome: 'ok' });
  });

  it("a missing gateway: the hint asks for the tool's argument, not for flags", async () => {
    const { client } = await sdkClient(cliEnv(sb, tempDir()));
    const { gateway: _g, ...noGateway } = customer({ reference: 'mcp-no-gateway' });
    const r = await client.callTool({ name: 'deposit', arguments: noGateway });
    expect(r.isError, JSON.stringify(r)).toBe(true);
    const { fields, hint } = structured(r).error;
    expect(fields).toHaveProperty('gateway');
    // the ids to choose from, as an unknown currency names the merchant's currencies
    expect(fields.gateway).toEqual([expect.stringMatching(/^required: one of 1 [^,]+(, \d+ [^,]+)+$/)]);
    expect(hint).not.toMatch(/flags|--no-input|terminal/);
    expect(hint).toMatch(/the tool's arguments/);
    await client.close();
  });

  it("doctor's skipped check names the doctor tool and check_api_key, not the CLI flag", async () => {
    const { client } = await sdkClient(cliEnv(live, tempDir(), { MPAY_ENV: 'live' }));
    const r = await client.callTool({ name: 'doctor', arguments: {} });
    const key = structured(r).checks.find((c: { name: string }) => c.name === 'API key');
    // (not `check_api_key: true`: a `*_key` name followed by a colon reads as a secret to the scrubber)
    expect(key.detail).toMatch(/the doctor tool with its argument check_api_key set to true/);
    expect(key.detail).not.toMatch(/--check-api-key|check-api-key/);
    await client.close();
  });
});

describe('the live question', () => {
  it('says the box must be ticked, and the log says what was decided', async () => {
    const { client, asked, stderr } = await sdkClient(cliEnv(live, tempDir(), { MPAY_ENV: 'live' }), {
      elicit: () => ({ action: 'accept', content: { send: false } }),
    });
    const r = await client.callTool({
      name: 'deposit',
      arguments: customer({ reference: 'mcp-live-unticked', amount: '8' }),
    });
    expect(structured(r).error.kind).toBe('cancelled');
    expect(asked[0]).toMatch(/Tick "Send it" and accept to send it; accepting with the box unticked/);
    await client.close();
    expect(stderr()).toMatch(/live confirmation: nothing sent \(accepted with "Send it" unticked\)/);
    expect(stderr()).not.toMatch(/live confirmation: accept/);
    const { client: noAsk } = await sdkClient(cliEnv(live, tempDir(), { MPAY_ENV: 'live' }));
    const refused = await noAsk.callTool({ name: 'deposit', arguments: customer({ amount: '8' }) });
    expect(structured(refused).error.message).toMatch(/8 GHS needs the person's answer/);
    await noAsk.close();
  });
});

describe('faults of the protocol', () => {
  it('answers a line that is not JSON with -32700, one that is not JSON-RPC with -32600, and tools/call without a name with -32602 in one line', async () => {
    const c = rawClient(cliEnv(sb, tempDir()));
    await initialize(c, {});
    c.child.stdin.write('{"jsonrpc": "2.0", "id": 7, "method": \n');
    const parse = await c.next((m) => m.error?.code === -32700);
    expect(parse.id).toBeNull();
    c.child.stdin.write(`${JSON.stringify({ hello: 'world', id: 8 })}\n`);
    const invalid = await c.next((m) => m.error?.code === -32600);
    expect(invalid.id).toBe(8);
    const n = c.request('tools/call', { arguments: {} });
    const params = await c.answerOf(n);
    expect(params.error.code).toBe(-32602);
    expect(params.error.message).toMatch(/params\.name/);
    expect(params.error.message).not.toMatch(/\n/);
    // the server goes on: a call after the faults is answered
    const ok = await c.answerOf(c.request('tools/call', { name: 'countries', arguments: {} }));
    expect(ok.result.isError).toBeFalsy();
    expect(c.stderr()).toMatch(/protocol error -32700/);
    c.child.stdin.end();
    expect(await c.done).toBe(0);
  });
});
