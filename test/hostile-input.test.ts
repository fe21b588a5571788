import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as z from 'zod/mini';
import { MpayError, UsageError } from '../src/common/errors.js';
import { failureError, successData } from '../src/api/response.js';
import * as s from '../src/api/schemas.js';
import { checked, fields, phoneNumber, problem, type Field } from '../src/flows/payment/inputs.js';
import { clean } from '../src/ui/output.js';
import { singleQuoted } from '../src/common/shell-words.js';
import { cliEnv, noStack, sandbox, tempDir } from './helpers.js';
import { mpay as run } from './in-process.js';

/** checked() either accepts (and the value then matches the field's rule) or throws a UsageError naming the flag. */
function acceptsOrNames(f: Field, value: string): void {
  try {
    const v = checked(f, value);
    expect(f.check(v)).toBeUndefined();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    const e = err as UsageError;
    expect(e.message).toContain(f.flag);
    expect(Object.keys(e.fields)).toEqual([f.field]);
  }
}

const rejects = (f: Field, value: string) => {
  expect(() => checked(f, value), `${f.flag} ${JSON.stringify(value)}`).toThrow(UsageError);
};

const controlChar = fc.integer({ min: 0, max: 0x1f }).chain((c) => fc.constant(String.fromCharCode(c)));
const escapeSeqs = ['\u001b[31m', '\u001b]0;x\u0007', '\u009b2J', '\u202e', '\u0000', '\r', '\n', '\u0008'];

describe('flag and prompt values (property tests)', () => {
  it('every field accepts or rejects any string, naming its flag, and never throws anything else', () => {
    const all: Field[] = [...Object.values(fields), phoneNumber];
    fc.assert(
      fc.property(
        fc.constantFrom(...all),
        fc.oneof(
          fc.string(),
          fc.string({ unit: 'binary' }),
          fc.string({ maxLength: 400 }),
          fc.constantFrom(...escapeSeqs),
        ),
        (f, v) => acceptsOrNames(f, v),
      ),
      { numRuns: 3000 },
    );
  });

  it('amounts with commas, exponents, signs or too many decimals are refused (their size is for the limits)', () => {
    const bad = fc.oneof(
      fc.tuple(fc.nat(999), fc.nat(999)).map(([a, b]) => `${a + 1},${String(b).padStart(3, '0')}`),
      fc.tuple(fc.nat(99), fc.integer({ min: 1, max: 20 })).map(([a, e]) => `${a + 1}e${e}`),
      fc.tuple(fc.constantFrom('-', '+'), fc.nat(1e6)).map(([sign, n]) => `${sign}${n}`),
      fc.tuple(fc.nat(1e6), fc.integer({ min: 100, max: 99999 })).map(([n, d]) => `${n}.${d}`),
      fc.constantFrom('', ' ', 'NaN', 'Infinity', '0x10', '1_000', '١٢', '.5', '5.', '00.5'),
    );
    fc.assert(
      fc.property(bad, (v) => rejects(fields.amount, v)),
      { numRuns: 1000 },
    );
  });

  it('names with control, escape or bidi characters, or over 100 characters, are refused', () => {
    const withControl = fc
      .tuple(
        fc.string({ maxLength: 20 }),
        fc.oneof(controlChar, fc.constantFrom(...escapeSeqs)),
        fc.string({ maxLength: 20 }),
      )
      .map(([a, c, b]) => `Ama${a}${c}X${b}`); // leading and trailing white space is trimmed, not refused
    fc.assert(
      fc.property(withControl, (v) => rejects(fields.firstName, v)),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.integer({ min: 101, max: 5000 }), (n) => rejects(fields.lastName, 'a'.repeat(n))),
      { numRuns: 50 },
    );
  });

  it("e-mails: RFC 5322's dot-atom with RFC 6531's letters and an IDNA domain; not a..b", () => {
    for (const ok of [
      "o'brien@example.com",
      'zoë@exämple.com',
      'a.b+tag@mail.example.co.uk',
      'x_y@xn--bcher-kva.de',
    ])
      expect(problem(fields.email, ok), ok).toBeUndefined();
    for (const bad of [
      'a..b@example.com',
      '.a@example.com',
      'a.@example.com',
      'a@example',
      'a@exa mple.com',
      'a@1.2',
      'a"b@example.com',
    ])
      expect(problem(fields.email, bad), bad).toBeDefined();
  });

  it('malformed e-mails and phones, and codes of the wrong form, are refused', () => {
    const badEmail = fc.oneof(
      fc.string().filter((v) => !v.includes('@')),
      fc.constantFrom(
        'a@',
        '@b.co',
        'a@b',
        'a b@c.de',
        'a@b..co',
        'a@-b.co',
        `${'a'.repeat(250)}@b.co`,
        'a@b\n.co',
        'a\u0000@b.co',
      ),
    );
    fc.assert(
      fc.property(badEmail, (v) => rejects(fields.email, v)),
      { numRuns: 500 },
    );
    const badPhone = fc.oneof(
      fc.string().filter((v) => !/^\+?[0-9 ().-]+$/.test(v)),
      fc.constantFrom('+0123456', '12345', '+1234567890123456', '++233201234567', '233-20-12;rm'),
    );
    fc.assert(
      fc.property(badPhone, (v) => rejects(fields.phone, v)),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(
        fc.string().filter((v) => !/^\s*[A-Za-z]{3,5}\s*$/.test(v)),
        (v) => rejects(fields.currency, v),
      ),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(
        fc.string().filter((v) => !/^\s*[A-Za-z]{2}\s*$/.test(v)),
        (v) => rejects(fields.country, v),
      ),
      { numRuns: 500 },
    );
  });

  it('hash tokens with path or shell characters are refused', () => {
    const special = fc.constantFrom(
      '/',
      '.',
      '\\',
      ';',
      '|',
      '&',
      '$',
      '`',
      '(',
      ')',
      ' ',
      "'",
      '"',
      '\n',
      '%',
      '?',
      '#',
      '*',
    );
    const v = fc
      .tuple(
        fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 4, maxLength: 40 }),
        special,
        fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), maxLength: 40 }),
      )
      .map(([a, c, b]) => `${a}${c}${b}`);
    fc.assert(
      fc.property(v, (h) => rejects(fields.hashToken, h)),
      { numRuns: 500 },
    );
    for (const h of ['../../etc/passwd', '$(rm -rf ~)', '`id`', 'abc;ls', '..%2f..%2f'])
      rejects(fields.hashToken, h);
  });
});

describe('response parsers (property tests)', () => {
  const schemas = [
    z.array(s.Currency),
    z.array(s.Country),
    z.array(s.MerchantCurrency),
    s.InitiatedPayment,
    s.Transaction,
    s.StatusUpdateResult,
    s.WalletAddressUpdateResult,
    s.TokenData,
    s.WithdrawProcessedData,
  ];
  const onlyMpayErrors = (f: () => unknown) => {
    try {
      f();
    } catch (err) {
      if (!(err instanceof MpayError)) throw err;
    }
  };

  it('arbitrary JSON never crashes them: data or a typed error', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...schemas),
        fc.json(),
        fc.integer({ min: 200, max: 299 }),
        (schema, body, status) => {
          onlyMpayErrors(() => successData('GET /x', status, 'application/json', body, schema));
        },
      ),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.json(), fc.integer({ min: 400, max: 599 }), (body, status) => {
        const e = failureError('POST /x', status, 'application/json', body);
        expect(e).toBeInstanceOf(MpayError);
        expect(e.status).toBe(status);
      }),
      { numRuns: 1000 },
    );
  });

  it('arbitrary bytes never crash them either', () => {
    const bytes = fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('utf8'));
    fc.assert(
      fc.property(
        fc.constantFrom(...schemas),
        bytes,
        fc.integer({ min: 100, max: 599 }),
        fc.option(fc.string()),
        (schema, body, status, type) => {
          onlyMpayErrors(() => successData('GET /x', status, type ?? undefined, body, schema));
          expect(failureError('GET /x', status, type ?? undefined, body)).toBeInstanceOf(MpayError);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('JSON shaped like the spec but with hostile values parses or fails typed', () => {
    const hostile = fc.oneof(
      fc.string(),
      fc.double(),
      fc.constant(null),
      fc.boolean(),
      fc.array(fc.string()),
      fc.object(),
    );
    const record = fc.dictionary(
      fc.constantFrom(
        'id',
        'name',
        'code',
        'has_token',
        'amount',
        'gateway_configuration',
        'status',
        'transaction_id',
        'token',
        'wallet_address',
        'gateway_id',
      ),
      hostile,
    );
    fc.assert(
      fc.property(fc.constantFrom(...schemas), fc.oneof(record, fc.array(record)), (schema, data) => {
        onlyMpayErrors(() =>
          successData(
            'GET /x',
            200,
            'application/json',
            JSON.stringify({ success: true, message: 'ok', data }),
            schema,
          ),
        );
      }),
      { numRuns: 2000 },
    );
  });
});

describe('terminal escapes', () => {
  it('clean() leaves no control or escape character in any string', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          fc.array(fc.constantFrom(...escapeSeqs, 'a', 'ü', '→')).map((a) => a.join('')),
        ),
        (v) => {
          expect(clean(v)).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/); // eslint-disable-line no-control-regex
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('a shell word on a terminal', () => {
  it('singleQuoted() holds nothing clean() would change, for every character of the BMP', () => {
    // the two sets agree: what a terminal acts on is written $'\xHH' in a printed command
    for (let c = 0; c < 0x10000; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const ch = String.fromCharCode(c);
      const word = singleQuoted(`a${ch}b`);
      expect(clean(word), `U+${c.toString(16)}`).toBe(word);
      if (clean(ch) !== ch && ch !== '\r') expect(word, `U+${c.toString(16)}`).toContain("$'\\x");
    }
  });
});

describe('the CLI with hostile values and a hostile server', () => {
  let sb: Awaited<ReturnType<typeof sandbox>>;
  beforeAll(async () => {
    sb = await sandbox();
  });
  afterAll(() => sb.close());

  const base = {
    currency: 'GHS',
    country: 'GH',
    amount: '25',
    'first-name': 'Ama',
    phone: '+233201234567',
    email: 'ama@example.com',
    gateway: '1',
  };
  const cases: Array<[string, string, string]> = [
    ['amount', '1,000', 'amount'],
    ['amount', '1e5', 'amount'],
    ['amount', '-5', 'amount'],
    ['amount', '10.123', 'amount'],
    ['first-name', 'Ama\u001b[31mX', 'customer_first_name'],
    ['first-name', 'x'.repeat(5000), 'customer_first_name'],
    ['email', 'not-an-email', 'customer_email'],
    ['phone', '+1; rm -rf ~', 'customer_phone'],
    ['currency', 'gh$', 'currency_code'],
    ['country', 'GHA', 'country_code'],
    ['gateway', '1 OR 1=1', 'gateway_id'],
    ['reference', '../../x', 'customer_transaction_id'],
  ];
  it('a sample of hostile flag values: exit 2 naming the field, and no request leaves', async () => {
    const before = JSON.stringify(sb.state.requestCounts());
    for (const [flag, value, field] of cases) {
      const flags = { ...base, [flag]: value };
      const args = Object.entries(flags).flatMap(([k, v]) => [`--${k}`, v]);
      const r = await run(['deposit', ...args, '--json'], { env: cliEnv(sb, tempDir()) });
      expect(r.code, `${flag}=${value}: ${r.stderr}`).toBe(2);
      expect(Object.keys(r.json().error.fields)).toEqual([field]);
      expect(noStack(r.stderr)).toBe(true);
      expect(r.stderr).not.toMatch(/\u001b/); // eslint-disable-line no-control-regex
    }
    for (const hash of ['../../etc/passwd', '$(id)', 'abc;ls -la']) {
      const r = await run(['status', hash, '--status', 'failed', '--gateway', '1', '--json'], {
        env: cliEnv(sb, tempDir()),
      });
      expect(r.code).toBe(2);
      expect(r.json().error.fields).toHaveProperty('hash_token');
    }
    expect(JSON.stringify(sb.state.requestCounts())).toBe(before);
  }, 60_000);

  it('escape sequences in server answers never reach the terminal', async () => {
    const evil = await sandbox({
      faults: ['escapes'],
      rate: 1,
      faultPaths: ['/public/', '/merchant/currencies'],
    });
    try {
      const env = cliEnv(evil, tempDir());
      for (const args of [
        ['countries'],
        ['currencies', '--merchant'],
        ['countries', '--csv'],
        ['currencies', '--merchant', '--debug'],
      ]) {
        const r = await run(args, { env });
        expect(r.code, args.join(' ')).toBe(0);
        expect(r.stdout).toMatch(/pwned/); // the hostile text arrived, made visible
        expect(r.stdout + r.stderr).not.toMatch(/[\u001b\u0007\u009b]/); // eslint-disable-line no-control-regex
      }
      const json = await run(['countries', '--json'], { env });
      expect(json.stdout).not.toMatch(/\u001b/); // eslint-disable-line no-control-regex
      expect(json.json()[0].name).toMatch(/^\u001b\[31m/); // eslint-disable-line no-control-regex
    } finally {
      await evil.close();
    }
  });

  it('a token with control characters is a server error (exit 7), never sent in a header', async () => {
    const evil = await sandbox({ faults: ['escapes'], rate: 1, faultPaths: ['/token/generate'] });
    try {
      const r = await run(['currencies', '--merchant', '--json'], { env: cliEnv(evil, tempDir()) });
      expect(r.code).toBe(7);
      expect(r.json().error.message).toMatch(/not what the spec describes/);
      expect(evil.state.requestCounts()['GET /merchant/currencies']).toBeUndefined();
    } finally {
      await evil.close();
    }
  });
});
