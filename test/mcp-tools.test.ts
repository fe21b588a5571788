// The tools of `mpay mcp` are made from the endpoint table (src/api/endpoints.ts) and the flows: every
// endpoint is a tool or excluded with a reason, a tool moves money exactly when its endpoints do, and its
// arguments are its endpoint's request fields (the credentials left out), named as the commands' flags.
// A new endpoint in the table becomes a tool with no change in src/mcp.
import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { endpointList, requestFields, type Endpoint, type EndpointId } from '../src/api/endpoints.js';
import * as s from '../src/api/schemas.js';
import { argumentOf } from '../src/mcp/arguments.js';
import {
  annotationsOf,
  offered,
  tools,
  toolsFrom,
  whyNotATool,
  type Listed,
  type Tool,
} from '../src/mcp/tools.js';
import { Secrets } from '../src/api/redact.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './helpers.js';

const schemaOf = (t: Tool) =>
  z.toJSONSchema(t.input, { io: 'input' }) as { properties: object; required?: string[] };
const argumentsOf = (t: Tool) => Object.keys(schemaOf(t).properties);

describe('the tools, from the endpoint table', () => {
  it('offers every endpoint as a tool of its own, or names why not', () => {
    for (const e of endpointList) {
      const own = tools.filter((t) => t.endpoints.length === 1 && t.endpoints[0] === e.id);
      const why = whyNotATool(e);
      expect(own.length + (why ? 1 : 0), `${e.id}: a tool, or a reason`).toBe(1);
    }
    // the two left out: the token (a secret) and the alias of the merchant's currencies
    expect(endpointList.filter((e) => whyNotATool(e)).map((e) => e.id)).toEqual([
      'tokenGenerate',
      'publicMerchantCurrencies',
    ]);
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
  });

  it('says a tool moves money exactly when an endpoint it sends does, and --read-only offers none of those', () => {
    const byId = new Map(endpointList.map((e) => [e.id, e]));
    for (const t of tools) {
      const moves = t.endpoints.some((id) => byId.get(id)!.money !== undefined);
      expect(t.money, t.name).toBe(moves);
      expect(t.description.startsWith('MOVES MONEY'), t.name).toBe(moves);
      // doctor's API-key check is a probe the API refuses: its description says how it passes the gate
      if (!moves && t.name !== 'doctor') expect(t.description, t.name).toMatch(/Moves no money/);
    }
    const readOnly = offered(true);
    expect(readOnly.length).toBeGreaterThan(0);
    for (const t of readOnly) expect(t.endpoints.every((id) => byId.get(id)!.money === undefined)).toBe(true);
    // the table's money endpoints, each a tool that --read-only leaves out
    const moneyTools = tools.filter((t) => t.endpoints.length === 1 && byId.get(t.endpoints[0]!)!.money);
    expect(moneyTools.map((t) => t.name).sort()).toEqual(
      [
        'deposit_initiate',
        'deposit_process',
        'status_update',
        'wallet_update',
        'withdraw_initiate',
        'withdraw_process',
      ].sort(),
    );
  });

  it("takes a step's arguments from its request schema: every field but the credentials, named as its flag", () => {
    for (const t of tools.filter((x) => x.endpoints.length === 1)) {
      const e = endpointList.find((x) => x.id === t.endpoints[0])!;
      const expected = requestFields(e)
        .filter((f) => !e.credentials.includes(f))
        .map((f) => argumentOf[f] ?? f);
      expect(argumentsOf(t), t.name).toEqual(expected);
    }
    expect(argumentsOf(tools.find((t) => t.name === 'status_update')!)).toEqual(['key', 'status', 'gateway']);
    // the whole flows: their steps' arguments together, the wallet switch too
    const withdraw = tools.find((t) => t.name === 'withdraw')!;
    expect(new Set(argumentsOf(withdraw))).toEqual(
      new Set([
        'currency',
        'country',
        'first_name',
        'last_name',
        'phone',
        'email',
        'reference',
        'amount',
        'gateway',
        'phone_number',
        'receiver_email',
        'otp',
        'wallet',
      ]),
    );
    expect(schemaOf(withdraw).required?.sort()).toEqual([
      'amount',
      'currency',
      'email',
      'first_name',
      'phone',
    ]);
    expect(argumentsOf(tools.find((t) => t.name === 'deposit')!)).not.toContain('otp');
  });

  it('checks an argument as the flag is checked, naming the argument', () => {
    const deposit = tools.find((t) => t.name === 'deposit_initiate')!;
    const good = {
      currency: 'GHS',
      amount: '25',
      first_name: 'Ama',
      phone: '+233201234567',
      email: 'ama@example.com',
    };
    expect(deposit.input.safeParse(good).success).toBe(true);
    const bad = deposit.input.safeParse({ ...good, amount: '1e3' });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues.map((i) => i.path.join('.'))).toEqual(['amount']);
    expect(bad.error!.issues[0]!.message).toMatch(/positive decimal/);
  });

  it('makes a new read of the table a tool, and leaves out a new token, alias, or money endpoint no flow sends, saying why', () => {
    const extra = (id: string, e: Partial<Endpoint>): Listed =>
      ({
        id: id as EndpointId,
        method: 'GET',
        path: `x/${id}`,
        summary: `The ${id}`,
        encoding: 'none',
        bearer: true,
        data: z.unknown(),
        secret: [],
        secretAnswer: [],
        credentials: [],
        personal: [],
        names: [],
        ...e,
      }) as Listed;
    const settlements = extra('merchantSettlements', {});
    const refund = extra('withdrawReverse', {
      method: 'POST',
      encoding: 'json',
      money: { kind: 'withdraw', step: 'status' },
      request: z.object({
        hash_token: z.string(),
        status: s.TransactionStatus,
        reason: z.optional(z.string()),
      }),
      names: ['hash_token'],
    });
    const token = extra('tokenRefresh', { method: 'POST', token: true });
    const alias = extra('publicMerchantBalances', { alias: true });
    const more = toolsFrom([...endpointList, settlements, refund, token, alias]);
    expect(more.length).toBe(tools.length + 1);
    const read = more.find((t) => t.name === 'merchant_settlements')!;
    expect(read).toMatchObject({ money: false, endpoints: ['merchantSettlements'] });
    expect(read.description).toMatch(
      /^Reads: The merchantSettlements \(GET \/restapi\/v1\/x\/merchantSettlements\)/,
    );
    // a money endpoint no flow sends (the status step's flow sends statusUpdate) is left out, saying so:
    // a tool of it would send the flow's endpoint, not its own
    expect(more.find((t) => t.name === 'withdraw_reverse')).toBeUndefined();
    expect(whyNotATool(refund, [...endpointList, refund])).toMatch(/no flow sends .*statusUpdate.*mpay api/);
    // nor does the withdraw flow take it for its status step
    expect(more.find((t) => t.name === 'withdraw')!.endpoints).toEqual(
      tools.find((t) => t.name === 'withdraw')!.endpoints,
    );
    // --read-only offers the new read
    expect(more.filter((t) => !t.money).map((t) => t.name)).toContain('merchant_settlements');
    expect(whyNotATool(token)).toMatch(/bearer token/);
    expect(whyNotATool(alias)).toMatch(/another path/);
  });
});

describe('what tools/list says of a tool', () => {
  it('says doctor is read-only only where its API-key check cannot run (--read-only); it is a journaled withdraw initiate', () => {
    const doctor = tools.find((t) => t.name === 'doctor')!;
    expect(annotationsOf(doctor, false).readOnlyHint).toBe(false);
    expect(annotationsOf(doctor, true).readOnlyHint).toBe(true);
    expect(annotationsOf(doctor, false).destructiveHint).toBe(false);
    // a plain read is read-only either way, a money tool never
    const balances = tools.find((t) => t.name === 'balances')!;
    expect(annotationsOf(balances, false).readOnlyHint).toBe(true);
    const deposit = tools.find((t) => t.name === 'deposit')!;
    expect(annotationsOf(deposit, false)).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  it("says the withdrawal's one-time code once", () => {
    const withdraw = tools.find((t) => t.name === 'withdraw')!;
    expect(withdraw.description.match(/one-time code/g)).toHaveLength(1);
    expect(withdraw.description).toMatch(
      /the code, e-mailed to the customer, is asked of the person or given as otp/,
    );
  });
});

describe("docs/mcp.md on the one-time code's masking", () => {
  it('says what the scrubber does: the code masked as a word of its own, kept inside a longer number', () => {
    const doc = readFileSync(join(root, 'docs', 'mcp.md'), 'utf8').replace(/\s+/g, ' ');
    const said =
      /word of their own \(`(\d+)`, `([^`]+)`, `([^`]+)`\), they are shown as `([^`]+)`.*a phone number `([^`]+)` holding them is shown whole/.exec(
        doc,
      );
    expect(said, 'the doc names its examples').not.toBeNull();
    const [, code, ...rest] = said!;
    const [ref, field, mask, phone] = rest as [string, string, string, string];
    const secrets = new Secrets();
    secrets.register(code);
    expect(secrets.scrub(code!)).toBe(mask);
    expect(secrets.scrub(ref)).toBe(ref.replace(code!, mask));
    expect(secrets.scrub(field)).toBe(field.replace(code!, mask));
    expect(phone).toContain(code);
    expect(secrets.scrub(phone)).toBe(phone);
  });
});
