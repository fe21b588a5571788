import { MoneyGate } from '../src/flows/gate/money-gate.js';
// The seams the structure promises (docs/architecture.md): flags become Options on their own (runF), each
// run gets its own IO and variables, one live gate per run, interruptions through the IO, and the proxy
// read from the run's variables.
import { describe, expect, it } from 'vitest';
import { proxyFor } from '../src/api/proxy.js';
import { ScriptedPrompter } from '../src/flows/prompter.js';
import { makeInterrupts } from '../src/io/interrupts.js';
import { tempDir } from './helpers.js';
import { mpay, optionsOf } from './in-process.js';

const hash = 'a'.repeat(64);

describe.concurrent('flags become Options, once, at the edge', () => {
  it('a payment: the gateway a number, the code checked, the rest as given', async () => {
    const { options, result } = await optionsOf([
      'withdraw',
      '--currency',
      'GHS',
      '--amount',
      '25',
      '--gateway',
      '7',
      '--otp',
      '123456',
      '--phone',
      '+233 20 123 4567',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(options).toMatchObject({
      inputs: { currency: 'GHS', amount: '25', gateway: 7, otp: '123456', phone: '+233 20 123 4567' },
    });
  });

  it('a bad value is a usage error before the run function is reached', async () => {
    for (const argv of [
      ['status', hash, '--status', 'failed', '--gateway', 'x'],
      ['deposit', '--gateway', '0'],
      ['withdraw', 'process', hash, '--otp', ''],
    ]) {
      const { options, result } = await optionsOf(argv);
      expect(options, argv.join(' ')).toBeUndefined();
      expect(result.code, argv.join(' ')).toBe(2);
    }
    const { result } = await optionsOf(['status', hash, '--status', 'failed', '--gateway', 'x']);
    expect(result.stderr).toMatch(/Invalid --gateway "x"/);
  });

  it("a flag's variable comes from the run's variables, never from process.env", async () => {
    const runs = await Promise.all(
      ['one', 'two', 'three'].map((p) => optionsOf(['logout'], { MPAY_PROFILE: p })),
    );
    expect(runs.map((r) => (r.options as { profile?: string }).profile)).toEqual(['one', 'two', 'three']);
    expect(process.env.MPAY_PROFILE).toBeUndefined();
    // and a flag given beats its variable, as oclif has it
    const given = await optionsOf(['logout', '--profile', 'flag'], { MPAY_PROFILE: 'variable' });
    expect((given.options as { profile?: string }).profile).toBe('flag');
  });

  it('runs side by side in one process keep their own output', async () => {
    const urls = ['http://127.0.0.1:4101', 'http://127.0.0.1:4102', 'http://127.0.0.1:4103'];
    const runs = await Promise.all(
      urls.map((u) =>
        mpay(['docs', '--json'], {
          env: { MPAY_BASE_URL: u, MPAY_CONFIG_DIR: tempDir(), MPAY_ENV: 'sandbox' },
        }),
      ),
    );
    expect(runs.map((r) => r.json().data?.url ?? r.json().url)).toEqual(
      urls.map((u) => `${u}/restapi/documentation`),
    );
  });
});

describe('the live gate', () => {
  it('asks once a run, whichever copy of the deps passes it first', async () => {
    const p = new ScriptedPrompter([true]);
    const gate = new MoneyGate('live', { prompter: p });
    const a = { gate };
    const b = { ...a };
    await a.gate.pass({ what: 'this deposit of 20 GHS' });
    await b.gate.pass({ what: 'Updating the status' });
    expect(p.asked).toEqual(['LIVE server this server, real money: this deposit of 20 GHS. Send it?']);
  });

  it('refuses live money without a terminal or --yes, and asks nothing elsewhere', async () => {
    await expect(new MoneyGate('live').pass({ what: 'x' })).rejects.toMatchObject({
      exitCode: 16,
      kind: 'confirmation_required',
    });
    await expect(
      new MoneyGate('live').pass({
        what: '3 deposits',
        batch: { question: 'Send these 3 deposits', rows: 3 },
      }),
    ).rejects.toThrow(/3 deposits would move real money/);
    await expect(new MoneyGate('live', { yes: true }).pass({ what: 'x' })).resolves.toBeUndefined();
    await expect(new MoneyGate('stage').pass({ what: 'x' })).resolves.toBeUndefined();
    await expect(new MoneyGate('live').pass({ what: 'x' }, true)).resolves.toBeUndefined();
  });

  it("a batch's question is asked on a terminal in any environment, and holds for its rows", async () => {
    const p = new ScriptedPrompter([false]);
    await expect(
      new MoneyGate('sandbox', { prompter: p }).pass({
        what: '2',
        batch: { question: 'Send these 2', rows: 2 },
      }),
    ).rejects.toMatchObject({ kind: 'cancelled' });
    const yes = new ScriptedPrompter([true]);
    const gate = new MoneyGate('live', { prompter: yes });
    await gate.pass({ what: '2', batch: { question: 'Send these 2', rows: 2 } });
    await gate.pass({ what: 'row 1' });
    expect(yes.asked).toEqual(['Send these 2 on the live server this server (LIVE, real money)?']);
  });
});

describe('interruptions', () => {
  it('the first ends the run after its listeners spoke; inside graceful work only a second does', async () => {
    const exits: number[] = [];
    const heard: string[] = [];
    const plain = makeInterrupts((n) => exits.push(n));
    plain.signal.addEventListener('abort', () => heard.push(`abort ${String(plain.signal.reason)}`));
    plain.fire('SIGINT');
    expect(heard).toEqual(['abort SIGINT']);
    expect(exits).toEqual([130]);

    const soft = makeInterrupts((n) => exits.push(n));
    let stopNow = 0;
    await soft.graceful(
      async () => {
        soft.fire('SIGTERM');
        expect(soft.signal.aborted).toBe(true);
        expect(exits).toEqual([130]);
        soft.fire('SIGTERM');
      },
      () => stopNow++,
    );
    expect(stopNow).toBe(1);
    expect(exits).toEqual([130, 143]);
  });
});

describe('what a reader gone must not cut', () => {
  it('is busy inside graceful work and while a hold is kept; a hold lets go once', async () => {
    const i = makeInterrupts(() => {});
    expect(i.busy()).toBe(false);
    await i.graceful(async () => expect(i.busy()).toBe(true));
    expect(i.busy()).toBe(false);
    const first = i.hold();
    const second = i.hold();
    first();
    first(); // let go twice: counted once
    expect(i.busy()).toBe(true);
    second();
    expect(i.busy()).toBe(false);
  });
});

describe('a server run', () => {
  it('serves until the first interruption, then stops with its reason, and does not end the run', async () => {
    const exits: number[] = [];
    const i = makeInterrupts((n) => exits.push(n));
    const stopped: string[] = [];
    const served = i.untilInterrupted(async (reason) => void stopped.push(reason));
    expect(stopped).toEqual([]);
    i.fire('SIGTERM');
    await served;
    expect(stopped).toEqual(['SIGTERM']);
    expect(exits).toEqual([]);
  });
});

describe("the proxy, from the run's variables", () => {
  it('follows HTTPS_PROXY and NO_PROXY as given, and reads nothing else', () => {
    const env = { HTTPS_PROXY: 'http://proxy.example:3128', NO_PROXY: '.internal.example,api.example:8443' };
    expect(proxyFor('https://api.example/', env)).toBe('http://proxy.example:3128');
    expect(proxyFor('https://api.example:8443/', env)).toBeUndefined();
    expect(proxyFor('https://pay.internal.example/', env)).toBeUndefined();
    expect(proxyFor('https://api.example/', { https_proxy: 'proxy.example:1' })).toBe(
      'https://proxy.example:1',
    );
    expect(proxyFor('https://api.example/', { ...env, NO_PROXY: '*' })).toBeUndefined();
    expect(proxyFor('https://api.example/', {})).toBeUndefined();
    // plain http only through a proxy on loopback
    expect(proxyFor('http://127.0.0.1:4010/', { HTTP_PROXY: 'http://proxy.example:3128' })).toBeUndefined();
  });
});
