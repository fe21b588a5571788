// The run's secrets by value (api/redact.ts Secrets, api/client.ts), in this process: what a client holds
// (its merchant key, its API key, a withdrawal's one-time code) is registered as it is handed over, and is
// scrubbed wherever it stands, a HAR body kept as base64 included. What the commands print is checked
// end to end in scrub.test.ts.
import { describe, expect, it } from 'vitest';
import { Client } from '../src/api/client.js';
import { memoryTokens } from '../src/api/credentials.js';
import { UnexpectedError } from '../src/common/errors.js';
import { codeIsSecret, redacted, Secrets } from '../src/api/redact.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const unb64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');

describe('Secrets.register', () => {
  it('scrubs a registered value of 4 characters or more as a whole word: a 6-digit code, a 4-digit one', () => {
    const s = new Secrets();
    s.register('918273');
    s.register('4821');
    s.register('abc');
    s.register('');
    s.register(undefined);
    s.register(null);
    expect(s.text('your code is 918273.')).toBe(`your code is ${redacted}.`);
    expect(s.text('pin 4821')).toBe(`pin ${redacted}`);
    // too short to say anything: left as it is
    expect(s.text('abc abc')).toBe('abc abc');
    // inside a longer word or number it is another thing (a phone that holds the digits)
    expect(s.text('+233918273555 x4821y')).toBe('+233918273555 x4821y');
  });

  it('scrubs the longest of two overlapping secrets whole, and regexp characters literally', () => {
    const s = new Secrets();
    s.register('key.1+');
    s.register('key.1+long');
    expect(s.text('a key.1+long b key.1+ c keyX1+')).toBe(`a ${redacted} b ${redacted} c keyX1+`);
    expect(new Secrets().text('nothing registered 918273')).toBe('nothing registered 918273');
  });

  it('scrubs a secret that another one begins, whole, whatever order they were registered in', () => {
    // shortest first: the pattern must still try the longest first, or 'tok-1234' would leave '-5678' shown
    const s = new Secrets();
    for (const v of ['tok-1234', 'tok-1234-5678', 'tok-1234-5678-90ab']) s.register(v);
    expect(s.text('a tok-1234-5678-90ab b tok-1234-5678 c tok-1234 d')).toBe(
      `a ${redacted} b ${redacted} c ${redacted} d`,
    );
  });

  it('copies any JSON-like value: null, numbers, booleans and arrays come back as they were', () => {
    const s = new Secrets();
    s.register('918273');
    expect(s.value(null)).toBeNull();
    expect(s.value({ a: null, b: [1, true, null, 'x 918273'], c: 2 })).toEqual({
      a: null,
      b: [1, true, null, `x ${redacted}`],
      c: 2,
    });
    expect(s.value(['918273'])).toEqual([redacted]);
  });

  it('a one-time code given as code= is a secret; an ISO or dial code is not', () => {
    for (const v of ['918273', '1234', 'abcdefghij', '%39%31%38']) expect(codeIsSecret(v), v).toBe(true);
    for (const v of ['GHS', 'gh', 'GHA', 'USDT', '%2B233', 'MATIC']) expect(codeIsSecret(v), v).toBe(false);
  });
});

describe('a HAR body kept as base64', () => {
  it('is decoded, scrubbed and encoded again: neither the secret nor its base64 is left', () => {
    const s = new Secrets();
    const secret = 'sk-live-0123456789abcdef';
    s.register(secret);
    // the secret at each of base64's three alignments
    for (const pad of ['', ' ', '  ']) {
      const body = `{"message":"ok","echo":"${pad}${secret}"}`;
      const har = {
        response: { content: { mimeType: 'application/json', encoding: 'base64', text: b64(body), size: 9 } },
      };
      const out = s.value(har) as typeof har;
      const content = out.response.content;
      expect(content.encoding).toBe('base64');
      expect(content.size).toBe(9);
      expect(unb64(content.text)).not.toContain(secret);
      expect(unb64(content.text)).toContain(redacted);
      expect(JSON.stringify(out)).not.toContain(b64(`${pad}${secret}`).slice(0, 12));
      expect(JSON.stringify(out)).not.toContain(secret);
    }
  });

  it('a secret field of a JSON body in base64 is scrubbed by its name; a clean body is left byte for byte', () => {
    const s = new Secrets();
    const body = JSON.stringify({ data: { token: 'eyJhbGciOi.token-value' } });
    const out = s.value({ encoding: 'base64', text: b64(body) }) as { text: string };
    expect(unb64(out.text)).toBe(JSON.stringify({ data: { token: redacted } }));
    const clean = { encoding: 'base64', text: b64('{"a":1}') };
    expect(s.value(clean)).toEqual(clean);
  });
});

describe('a client registers what it holds', () => {
  const url = 'http://127.0.0.1:1';
  it('its merchant key and its API key, as it is made', () => {
    const credentials = { merchantKey: 'mk-0123456789', siteId: 'site-1', apiKey: 'ak-9876543210' };
    const client = new Client({ baseUrl: url, credentials, tokens: memoryTokens() });
    expect(client.secrets.text('mk-0123456789 and ak-9876543210 and site-1')).toBe(
      `${redacted} and ${redacted} and site-1`,
    );
  });

  it('a withdrawal’s one-time code, as the confirmation is asked for, before anything is sent', async () => {
    const tokens = memoryTokens();
    // a token at hand: the request goes straight to the gate, which refuses it without a ticket
    await tokens.set('bearer-token-1');
    const client = new Client({ baseUrl: url, credentials: { merchantKey: 'mk-0123456789' }, tokens });
    // No ticket: the gate refuses it before the wire; the code was handed over all the same.
    await expect(
      client.withdrawProcessed({ hash_token: 'h', customer_email: 'a@b.c', otp: 918273 } as never),
    ).rejects.toBeInstanceOf(UnexpectedError);
    expect(client.secrets.text('code 918273')).toBe(`code ${redacted}`);
    await expect(
      client.withdrawProcessed({ hash_token: 'h', customer_email: 'a@b.c', otp: '564738' } as never),
    ).rejects.toBeInstanceOf(UnexpectedError);
    expect(client.secrets.text('code 564738')).toBe(`code ${redacted}`);
  });
});
