// The scrubber's rules by name and in free text (api/redact-rules.ts), through what a run's Secrets prints
// (api/redact.ts): a query's `code=` that is an ISO, coin or dial code kept and any other replaced, the
// header rule's words, a server's message under `errors` kept where a credential is not, a dotted or
// bracketed field name, HTML- and URL-escaped spellings of a registered secret, its base64 at any offset,
// and the word after an Authorization scheme told from prose. In-process, no server: Stryker runs it.
import { describe, expect, it } from 'vitest';
import { codeIsSecret, isCredential, isSecretHeader, redacted, Secrets } from '../src/api/redact.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('a code= of a query', () => {
  it('is kept when it is a currency, a country, a coin or a dial code, and replaced otherwise', () => {
    for (const v of ['gha', 'Gh', 'ABCDEF', '%2B1', '%2B2331', '%20GH%20'])
      expect(codeIsSecret(v), v).toBe(false);
    for (const v of ['ABCDEFG', '%2B23312', 'abcd', 'G', '9', '%2B', '%ZZ', 'a+b', 'ab+cd'])
      expect(codeIsSecret(v), v).toBe(true);
    const s = new Secrets();
    expect(s.text('https://x/cb?code=ABCDEFG&state=s1&sig=zz&key=kk&a=1')).toBe(
      `https://x/cb?code=${redacted}&state=${redacted}&sig=${redacted}&key=${redacted}&a=1`,
    );
    expect(s.text('https://x/cb?CODE=GHS&State=s1')).toBe(`https://x/cb?CODE=GHS&State=${redacted}`);
    // only as a query's or a form's pair: in prose, `key=` after a space is no query's
    expect(s.text('the key=value pair')).toBe('the key=value pair');
  });
});

describe('the header rule', () => {
  it('replaces a header whose name speaks of a key, token, secret, session, cookie, password or auth', () => {
    const s = new Secrets();
    const names = [
      'X-Apikey',
      'X-Api-Key',
      'X-Api_Key',
      'X-Session-Id',
      'X-Passwd',
      'X-Auth-Thing',
      'X-My-Secret-Thing',
      'X-Token-Hint',
      'X-Cookie-Jar',
      'X-Sessions',
      'X-Authz',
      // names the secret names miss (keys, not key): the header rule's own api-key word, with or
      // without a separator
      'X-Apikeys',
      'X-Api-Keys',
      'X-Api_Keys',
    ];
    for (const n of names) {
      expect(isSecretHeader(n), n).toBe(true);
      expect(s.headers({ [n]: 'v-1234567' }), n).toEqual({ [n]: redacted });
      // a header line in text: its value to the line's end
      expect(s.text(`${n}: v 1234567`), n).toBe(`${n}: ${redacted}`);
    }
    for (const n of ['X-Request-Id', 'Content-Type', 'X-Apiary', 'Accept'])
      expect(s.headers({ [n]: 'v-1234567' }), n).toEqual({ [n]: 'v-1234567' });
    // outside a header line, an X- name is read by the secret names alone
    expect(s.text('see X-Cookie-Jar: abc')).toBe('see X-Cookie-Jar: abc');
  });
});

describe('the server’s words about a secret field', () => {
  it('are kept under errors; a value without a space, or one word, is replaced as any secret', () => {
    const s = new Secrets();
    expect(
      s.value({
        errors: {
          merchant_key: ['is invalid', 'The selected merchant key is invalid.'],
          token: 'must be given',
          api_key: 'abc-123-xyz',
          password: ['is invalid', 'hunter22'],
          secret: '  sp ',
          otp: [],
        },
      }),
    ).toEqual({
      errors: {
        merchant_key: ['is invalid', 'The selected merchant key is invalid.'],
        token: 'must be given',
        api_key: redacted,
        password: redacted,
        secret: redacted,
        // no message in it: replaced as a value
        otp: redacted,
      },
    });
    // outside errors, words under a secret's name are its value all the same
    expect(s.value({ token: 'must be given' })).toEqual({ token: redacted });
  });
});

describe('a field named with dots or brackets', () => {
  it('is read by its last name, in a form, in HTML and in a script', () => {
    const s = new Secrets();
    s.learn('ep.merchant_key=mk-dotted-0001&a=1');
    s.learn('data[token]=tk-bracket-0002');
    s.learn('<input name="form.merchant_key" value="mk-&amp;html-0003">');
    s.learn(`var cfg = { "x.merchantKey": 'mk-script-0004' };`);
    expect(s.text('a mk-dotted-0001 b tk-bracket-0002 c mk-&html-0003 d mk-script-0004 e')).toBe(
      `a ${redacted} b ${redacted} c ${redacted} d ${redacted} e`,
    );
    s.learn('ep.merchant_key.=mk-trailing-0005&[]=x');
    expect(s.text('mk-trailing-0005')).toBe(redacted);
  });
});

describe('a registered secret’s spellings', () => {
  it('as it is, URL-, form-, JSON- and HTML-escaped', () => {
    const s = new Secrets();
    const v = `a&b<c>d"e'f g/h`;
    s.register(v);
    for (const t of [
      v,
      encodeURIComponent(v),
      encodeURIComponent(v).replace(/%20/g, '+'),
      JSON.stringify(v).slice(1, -1),
      'a&amp;b&lt;c&gt;d&quot;e&#39;f g/h',
    ])
      expect(s.text(`[${t}]`), t).toBe(`[${redacted}]`);
  });

  it('its base64 inside longer base64 text, at each offset, standard and URL-safe', () => {
    const s = new Secrets();
    // bytes whose base64 holds + and /: the URL-safe spelling differs
    const v = 'k\u00fb\u00ff?>~secret-0123456789';
    s.register(v);
    for (const pad of ['', 'x', 'xy', 'xyz']) {
      const enc = b64(`${pad}${v} and more`);
      const out = s.text(`data ${enc} end`);
      expect(out, pad).toContain(redacted);
      const safe = enc.replace(/\+/g, '-').replace(/\//g, '_');
      expect(s.text(`data ${safe} end`), pad).toContain(redacted);
    }
    // a secret of 6 bytes makes one piece of 8 characters, at the offset where its bytes are aligned
    const six = new Secrets();
    six.register('abcdef');
    expect(six.text(b64('abcdefzzz'))).toBe(`${redacted}${b64('abcdefzzz').slice(8)}`);
    // a secret too short for a piece of 8 characters is not matched inside base64
    const short = new Secrets();
    short.register('abcde');
    expect(short.text(`x ${b64('zzabcdezz')} y`)).toBe(`x ${b64('zzabcdezz')} y`);
  });
});

describe('the word after an Authorization scheme', () => {
  it('is a credential unless it is a word of prose shorter than 24 letters', () => {
    for (const w of [
      'generated',
      'Expired',
      'EXPIRED',
      're-issued',
      'Re-issued',
      'RE-ISSUED',
      'expired.',
      'expired...',
    ])
      expect(isCredential(w), w).toBe(false);
    for (const w of [
      'abcdefghijklmnopqrstuvwx',
      'Abcdefghijklmnopqrstuvwx.',
      'eyJhbGci',
      'abc1',
      'aBc',
      're-',
      '-re',
      'Re-Issued',
      'x.y',
    ])
      expect(isCredential(w), w).toBe(true);
    const s = new Secrets();
    expect(s.text('Token expired. Bearer abcdefghijklmnopqrstuvwx')).toBe(
      `Token expired. Bearer ${redacted}`,
    );
  });

  it('a secret’s name followed by a sentence is a message; by one word, a value', () => {
    const s = new Secrets();
    expect(s.text('merchant_key: The selected merchant key is invalid.')).toBe(
      'merchant_key: The selected merchant key is invalid.',
    );
    expect(s.text('token: "expired, please" renew')).toBe('token: "expired, please" renew');
    expect(s.text('log token: abc1 def')).toBe(`log token: ${redacted} def`);
    expect(s.text('log token: expired')).toBe(`log token: ${redacted}`);
    // at a line's start it is a header line: its value to the line's end
    expect(s.text('token: abc1 def')).toBe(`token: ${redacted}`);
    expect(s.text('log token: \'x1 y\' and otp: "1 2" then pin: 4711')).toBe(
      `log token: '${redacted}' and otp: "${redacted}" then pin: ${redacted}`,
    );
    expect(s.text('authorization: Bearer abc.def')).toBe(`authorization: Bearer ${redacted}`);
  });

  it('in prose, a secret’s name inside quotes or starting with _ or -: its value replaced, words kept', () => {
    const s = new Secrets();
    expect(s.text('error "token: abc123$(id)" was sent')).toBe(`error "token: ${redacted}" was sent`);
    expect(s.text('say \'otp: 918273\' and "pin:4711" now')).toBe(
      `say 'otp: ${redacted}' and "pin:${redacted}" now`,
    );
    expect(s.text('error "token: expired, ask again" was')).toBe('error "token: expired, ask again" was');
    // a name starting with _ or -: a form's _token, a flag
    expect(s.text('log _token: abc123 __pin: 4711 --password: hunter2 x')).toBe(
      `log _token: ${redacted} __pin: ${redacted} --password: ${redacted} x`,
    );
    // at the text's start, and right after a quoted value just replaced
    expect(s.text('_token: abc123')).toBe(`_token: ${redacted}`);
    expect(s.text('log token: "x 1"pin: 4711 x')).toBe(`log token: "${redacted}"pin: ${redacted} x`);
    // the end of a word is no name of its own
    expect(s.text('log xtoken: abc123 next')).toBe('log xtoken: abc123 next');
  });

  it('in free text, a secret’s name in quotes of either kind or starting with a digit, its value a number too: replaced', () => {
    const s = new Secrets();
    for (const [text, want, secret] of [
      ["log {'token': 'abc123'} end", `log {'token': '${redacted}'} end`, 'abc123'],
      ["log {'otp': 918273, 'amount': 5}", `log {'otp': ${redacted}, 'amount': 5}`, '918273'],
      ['got "pin": 4711 from it', `got "pin": ${redacted} from it`, '4711'],
      ['got "otp" : 918273,', `got "otp" : ${redacted},`, '918273'],
      ['got "token\': abc123 x', `got "token': ${redacted} x`, 'abc123'],
      ['log 2fa_pin: 1234 x', `log 2fa_pin: ${redacted} x`, '1234'],
      // a bare value ends at a closing brace, which is kept
      ['{token: abc123}', `{token: ${redacted}}`, 'abc123'],
    ]) {
      const out = s.text(text!);
      expect(out, text).toBe(want);
      expect(out, text).not.toContain(secret);
    }
    // a quoted name that is no secret's, the end of a quoted word, and words after a secret's name: kept
    expect(s.text(`"amount": 4711 and "xtoken": 4711 and 'token': expired again`)).toBe(
      `"amount": 4711 and "xtoken": 4711 and 'token': expired again`,
    );
  });

  it('JSON inside other text, spaced over lines: a secret-named string replaced whatever the spaces', () => {
    // The pair spans lines (a pretty-printed object after a log's words), which the rule for prose, one
    // line at a time, does not read: the rule for JSON in text does.
    const s = new Secrets();
    const text = 'log {\n  "data.token" :\n    "abc\\"123",\n  "otp":\n"918273",\n  "amount": "5"\n'; // cut
    expect(s.text(text)).toBe(
      `log {\n  "data.token" :\n    "${redacted}",\n  "otp":\n"${redacted}",\n  "amount": "5"\n`,
    );
  });

  it('in prose, only an Authorization itself is left to the rules that keep a scheme', () => {
    // a name that ends in authorization (an X- one) or starts with it (authorization_token) is any
    // secret's: its value replaced, even with no scheme before it; hostile values (quotes, a dollar, a
    // path) leave nothing of themselves behind
    const s = new Secrets();
    for (const [text, want] of [
      ['sent X-Authorization: abc123$x then', `sent X-Authorization: ${redacted} then`],
      ['sent X_Proxy_Authorization: "s3cr3t two" then', `sent X_Proxy_Authorization: "${redacted}" then`],
      ['sent authorization_token: /etc/tok9 then', `sent authorization_token: ${redacted} then`],
      ["sent AuthorizationKey: 'k-9 $(id)' then", `sent AuthorizationKey: '${redacted}' then`],
      ['sent proxy-authorization-pin: 4711 then', `sent proxy-authorization-pin: ${redacted} then`],
    ]) {
      const out = s.text(text!);
      expect(out, text).toBe(want);
      for (const v of ['abc123', 's3cr3t', 'tok9', 'k-9', '4711']) expect(out, text).not.toContain(v);
    }
    // Authorization itself, and a Proxy-Authorization: the scheme kept, the credential replaced
    expect(s.text('sent Authorization: Basic dXNlcjpw then')).toBe(
      `sent Authorization: Basic ${redacted} then`,
    );
    expect(s.text('sent Proxy-Authorization: Digest u1-x9 then')).toBe(
      `sent Proxy-Authorization: Digest ${redacted} then`,
    );
  });
});

describe('names read whole, not in part', () => {
  it('a query key, a code, errors, an X- header line and prose spaced oddly', () => {
    const s = new Secrets();
    expect(s.text('?upstate=a&statement=b&hasig=c&signal=d&turkey=e&keynote=f')).toBe(
      '?upstate=a&statement=b&hasig=c&signal=d&turkey=e&keynote=f',
    );
    expect(s.text('?zipcode=123456&codes=123456')).toBe('?zipcode=123456&codes=123456');
    expect(s.value({ myerrors: { token: 'is invalid' }, errorsx: { token: 'is invalid' } })).toEqual({
      myerrors: { token: redacted },
      errorsx: { token: redacted },
    });
    expect(s.value({ errors: { token: 'is  invalid' } })).toEqual({ errors: { token: 'is  invalid' } });
    expect(s.text('Fox-Auth: abc1')).toBe('Fox-Auth: abc1');
    expect(s.text('log token: re-issued today')).toBe('log token: re-issued today');
    expect(s.text('log token: expired  now')).toBe('log token: expired  now');
    expect(s.text('log token: expired "now"')).toBe('log token: expired "now"');
    expect(s.text('log token : abc1 x')).toBe(`log token : ${redacted} x`);
    expect(s.text('log token:  abc1 x')).toBe(`log token:  ${redacted} x`);
    // a name inside the value just replaced is not read again
    expect(s.text('log token: otp:1 x')).toBe(`log token: ${redacted} x`);
    const f = new Secrets();
    f.learn('merchant_key=a+b+c-123');
    expect(f.text('[a b c-123]')).toBe(`[${redacted}]`);
  });
});
