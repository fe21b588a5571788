// What a run's Secrets (api/redact.ts) learns from a document it is shown (a HAR, an answer, a form, a
// page) and how it prints one: every value found under a secret's name, a cookie, an Authorization's
// credential, a Basic password, a multipart part, an HTML input, a script's key, then replaced wherever it
// appears; a HAR's cookies and headers pair by pair; the scheme of an Authorization kept; a server's
// message kept. In-process, no server: Stryker runs it (docs/development.md, "Mutation testing").
import { describe, expect, it } from 'vitest';
import { fingerprint, mask, redacted, Secrets } from '../src/api/redact.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** The values of `found` that `s` replaces in a sentence, and those it leaves. */
function scrubbed(s: Secrets, found: string[]): Record<string, boolean> {
  return Object.fromEntries(found.map((v) => [v, s.text(`a ${v} b`) === `a ${redacted} b`]));
}

describe('learn: what a document shows to be secret', () => {
  it('a HAR: its cookies whatever their name, headers by the header rule, query pairs by secret names', () => {
    const s = new Secrets();
    s.learn({
      request: {
        cookies: [{ name: 'theme', value: 'ck-theme-0001' }],
        headers: [
          { name: 'X-Auth-Thing', value: 'hd-auth-0002' },
          { name: 'X-Request-Id', value: 'hd-plain-0003' },
          { name: 'Authorization', value: 'Bearer hd-bearer-0004' },
          { name: 'Cookie', value: '=ck-none-0007; sid=ck-sid-0005; pref=ck%2Fpref-0006; bare' },
          { name: 'Set-Cookie', value: 'sess=ck-set-0008; Path=/path-0009; Expires=never-0010' },
          null,
          { name: 'X-Token', value: 7 },
        ],
        queryString: [
          { name: 'merchant_key', value: 'qs-mk-0011' },
          { name: 'X-Auth-Thing', value: 'qs-auth-0012' },
        ],
      },
      errors: { merchant_key: 'er-mk-0013' },
      data: { token: '  tk-trim-0014  ', otp: redacted, secret: '   ', password: 'is not valid' },
    });
    expect(
      scrubbed(s, [
        'ck-theme-0001',
        'hd-auth-0002',
        'hd-plain-0003',
        'hd-bearer-0004',
        'ck-sid-0005',
        'ck%2Fpref-0006',
        'ck/pref-0006',
        'ck-none-0007',
        'ck-set-0008',
        'path-0009',
        'never-0010',
        'qs-mk-0011',
        'qs-auth-0012',
        'er-mk-0013',
        'tk-trim-0014',
        'is not valid',
      ]),
    ).toEqual({
      'ck-theme-0001': true,
      'hd-auth-0002': true,
      'hd-plain-0003': false,
      'hd-bearer-0004': true,
      'ck-sid-0005': true,
      'ck%2Fpref-0006': true,
      'ck/pref-0006': true,
      'ck-none-0007': false,
      'ck-set-0008': true,
      'path-0009': false,
      'never-0010': false,
      'qs-mk-0011': true,
      // a query's pair is read by the secret names, not the header rule
      'qs-auth-0012': false,
      // under errors a value is the server's, about the field
      'er-mk-0013': false,
      'tk-trim-0014': true,
      'is not valid': false,
    });
    // the redaction mark itself is never learned
    expect(s.text('a *** b')).toBe('a *** b');
  });

  it('a text: JSON in it, credentials, a Basic password, pairs, multipart parts, HTML and a script', () => {
    const s = new Secrets();
    s.learn(' {"data": {"merchant_key": "js-hash-0001"}} ');
    s.learn('[{"token": "js-arr-0002"}]');
    s.learn('{not json, token=tx-pair-0003');
    s.learn('Authorization: Bearer cr-bearer-0004 and Token cr-token-0005 and Bearer expired');
    s.learn(`Basic ${b64('user-0006:pa:ss-0007')}`);
    s.learn('https://x/cb?state=st-q-0008&code=123456&code=GHS&merchant_key=mk%2Bq-0009&page=pg-0010');
    s.learn(
      '--b\r\nContent-Disposition: form-data; name="merchant_key"\r\nContent-Type: text/plain\r\n\r\nmp-mk-0011\r\n' +
        '--b\r\nContent-Disposition: form-data; name="note"\r\n\r\nmp-note-0012\r\n--b--',
    );
    s.learn(`<input type="hidden" name='merchant_key' value="ht-mk-0013"><input name="q" value="ht-q-0014">`);
    s.learn(`const c = { apiKey: "sc-key-0015", label: "sc-label-0016" }`);
    s.learn('sid=ck-text-0017; a=ck-text-0018', 'Cookie');
    expect(
      scrubbed(s, [
        'js-hash-0001',
        'js-arr-0002',
        'tx-pair-0003',
        'cr-bearer-0004',
        'cr-token-0005',
        'expired',
        'pa:ss-0007',
        'user-0006',
        'st-q-0008',
        '123456',
        'mk%2Bq-0009',
        'mk+q-0009',
        'pg-0010',
        'mp-mk-0011',
        'mp-note-0012',
        'ht-mk-0013',
        'ht-q-0014',
        'sc-key-0015',
        'sc-label-0016',
        'ck-text-0017',
        'ck-text-0018',
      ]),
    ).toEqual({
      'js-hash-0001': true,
      'js-arr-0002': true,
      'tx-pair-0003': true,
      'cr-bearer-0004': true,
      'cr-token-0005': true,
      expired: false,
      'pa:ss-0007': true,
      'user-0006': false,
      'st-q-0008': true,
      '123456': true,
      'mk%2Bq-0009': true,
      'mk+q-0009': true,
      'pg-0010': false,
      'mp-mk-0011': true,
      'mp-note-0012': false,
      'ht-mk-0013': true,
      'ht-q-0014': false,
      'sc-key-0015': true,
      'sc-label-0016': false,
      'ck-text-0017': true,
      'ck-text-0018': true,
    });
  });

  it('nulls, numbers and names that are no strings: a number under a secret’s name is learned, nothing throws', () => {
    const s = new Secrets();
    s.learn({
      data: { otp: 918273, token: null, pin: undefined, amount: 5 },
      headers: [{ name: 5, value: 'hd-num-0001' }, 'odd', 3, null, undefined],
      list: [null, undefined, 7, true],
    });
    expect(scrubbed(s, ['918273', 'null', 'undefined', 'hd-num-0001'])).toEqual({
      '918273': true,
      null: false,
      undefined: false,
      'hd-num-0001': false,
    });
  });

  it('spaced, quoted and line-ended oddly: credentials after a scheme, cookies, parts, inputs and scripts', () => {
    const s = new Secrets();
    s.learn({
      headers: [{ name: 'X-Upstream-Authorization', value: 'Bearer up-tok-0001' }],
      'Set-Cookie': 'sess=ck-set-0002; Path=/path-0003',
    });
    // a bearer token that is base64 of a pair is not a Basic credential's
    s.learn(`Bearer ${b64('user:not-secret-0004')}`);
    s.learn('Bearer  two-space-0005');
    s.learn('--b\nContent-Disposition: form-data; name="otp"\n\nmp-lf-0006\n--b--');
    s.learn(
      '--b\r\nContent-Disposition: form-data; name="merchant_key"; filename="k.txt"\r\n\r\nmp-file-0013\r\n' +
        '--b\nContent-Disposition: form-data; name="pin"\nContent-Type: text/plain\n\nmp-lf-type-0014\n--b--',
    );
    s.learn('<input name="merchant_key" type="hidden" value="ht-attr-0007">');
    s.learn(`merchant_key='sc-bare-0008' ; api_key = "sc-spaced-0009"`);
    s.learn('sid=ck-spaced-0010 ; x=1', 'Cookie');
    // JSON with blanks around it, whose secret only its parse finds (a number); a scheme's name inside a word
    s.learn(' {"otp": 9182730011} ');
    s.learn('myToken not-learned-0012');
    expect(
      scrubbed(s, [
        'up-tok-0001',
        'ck-set-0002',
        '/path-0003',
        'not-secret-0004',
        'two-space-0005',
        'mp-lf-0006',
        'ht-attr-0007',
        'sc-bare-0008',
        'sc-spaced-0009',
        'ck-spaced-0010',
        '9182730011',
        'not-learned-0012',
        'mp-file-0013',
        'mp-lf-type-0014',
      ]),
    ).toEqual({
      'up-tok-0001': true,
      'ck-set-0002': true,
      '/path-0003': false,
      'not-secret-0004': false,
      'two-space-0005': true,
      'mp-lf-0006': true,
      'ht-attr-0007': true,
      'sc-bare-0008': true,
      'sc-spaced-0009': true,
      'ck-spaced-0010': true,
      '9182730011': true,
      'not-learned-0012': false,
      'mp-file-0013': true,
      'mp-lf-type-0014': true,
    });
  });

  it('a HAR body kept as base64 is read decoded', () => {
    const s = new Secrets();
    s.learn({ content: { encoding: 'base64', text: b64('{"token":"b64-tok-0001"}') } });
    s.learn({ content: { encoding: 'gzip', text: b64('{"token":"b64-tok-0002"}') } });
    expect(scrubbed(s, ['b64-tok-0001', 'b64-tok-0002'])).toEqual({
      'b64-tok-0001': true,
      'b64-tok-0002': false,
    });
  });
});

describe('value: a document as it is printed', () => {
  it('a HAR’s cookies all replaced, its headers by the header rule, a {name, value} pair by its name', () => {
    const s = new Secrets();
    const out = s.value({
      cookies: [{ name: 'theme', value: 'dark', path: '/' }, 'odd', null],
      headers: [
        { name: 'X-Auth-Thing', value: 'v1' },
        { name: 'Authorization', value: 'Bearer abc.def' },
        { name: 'X-Request-Id', value: 'r-1' },
        { name: 'Accept' },
        'odd',
      ],
      queryString: [
        { name: 'merchant_key', value: 'mk-1' },
        { name: 'page', value: '2' },
        { name: 'token', value: '' },
      ],
      Cookies: [{ name: 'x', value: 'y' }],
    });
    expect(out).toEqual({
      cookies: [{ name: 'theme', value: redacted, path: '/' }, 'odd', null],
      headers: [
        { name: 'X-Auth-Thing', value: redacted },
        { name: 'Authorization', value: `Bearer ${redacted}` },
        { name: 'X-Request-Id', value: 'r-1' },
        { name: 'Accept', value: undefined },
        'odd',
      ],
      queryString: [
        { name: 'merchant_key', value: redacted },
        { name: 'page', value: '2' },
        { name: 'token', value: '' },
      ],
      Cookies: [{ name: 'x', value: redacted }],
    });
  });

  it('a HAR’s headers and cookies, hostile: null, a string, a name that is no string, a pair without a value', () => {
    const s = new Secrets();
    expect(
      s.value({
        headers: [
          null,
          'odd',
          { name: 'X-Token' },
          { name: ['X-Token'], value: 'v-0001' },
          { value: 'v-0002' },
          { name: 'Authorization', value: ['Bearer a-0003', 'Bearer b-0004'] },
          { name: 'X-Upstream-Authorization', value: 'Bearer up-0005' },
          { name: 'Authorization-Hint', value: 'Bearer hint-0006' },
        ],
        cookies: 'theme=dark',
        pairs: [{ value: 'v-0007' }, { name: 'otp', value: 'v-0008' }, { name: 'otp' }],
      }),
    ).toEqual({
      headers: [
        null,
        'odd',
        { name: 'X-Token' },
        { name: ['X-Token'], value: redacted },
        { value: 'v-0002' },
        { name: 'Authorization', value: redacted },
        { name: 'X-Upstream-Authorization', value: redacted },
        { name: 'Authorization-Hint', value: redacted },
      ],
      cookies: 'theme=dark',
      pairs: [{ value: 'v-0007' }, { name: 'otp', value: redacted }, { name: 'otp' }],
    });
  });

  it('keeps a secret field that is empty or null, and the server’s messages under errors only', () => {
    const s = new Secrets();
    expect(
      s.value({
        token: null,
        otp: '',
        errors: { token: ['is invalid'] },
        error: { password: 'is too short' },
        data: { password: ['is too short'] },
      }),
    ).toEqual({
      token: null,
      otp: '',
      errors: { token: ['is invalid'] },
      error: { password: 'is too short' },
      data: { password: redacted },
    });
  });

  it('a registered secret in a key is replaced too', () => {
    const s = new Secrets();
    s.register('key-in-name-0001');
    expect(s.value({ 'key-in-name-0001': 1 })).toEqual({ [redacted]: 1 });
  });
});

describe('headers and text', () => {
  it('an Authorization keeps its scheme, a Proxy-Authorization too; a header rule name is replaced', () => {
    const s = new Secrets();
    s.register('reg-secret-0001');
    expect(
      s.headers({
        Authorization: 'Basic dXNlcjpwYXNz',
        'proxy-authorization': 'Digest abc',
        'X-Auth-Thing': 5,
        Location: 'https://x/cb?code=123456&state=st&page=2',
        'X-Echo': 'has reg-secret-0001',
        'X-Count': 3,
      }),
    ).toEqual({
      Authorization: `Basic ${redacted}`,
      'proxy-authorization': `Digest ${redacted}`,
      'X-Auth-Thing': redacted,
      Location: `https://x/cb?code=${redacted}&state=${redacted}&page=2`,
      'X-Echo': `has ${redacted}`,
      'X-Count': 3,
    });
  });

  it('a multipart body’s secret parts; JSON text kept as text; JSON inside other text; header lines', () => {
    const s = new Secrets();
    const multipart =
      '--b\r\ncontent-disposition: form-data; name="otp"\r\n\r\n918273\r\n--b\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n--b--';
    expect(s.text(multipart)).toBe(
      `--b\r\ncontent-disposition: form-data; name="otp"\r\n\r\n${redacted}\r\n--b\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n--b--`,
    );
    expect(s.text(' {"token": "t-1", "a": 1} ')).toBe(`{"token":"${redacted}","a":1}`);
    expect(s.text('[{"otp":"123"}]')).toBe(`[{"otp":"${redacted}"}]`);
    expect(s.text('{')).toBe('{');
    expect(s.text('{"token": "t-1", broken')).toBe(`{"token": "${redacted}", broken`);
    expect(s.text('got {"token" : "t\\"1", "a": "b"} back')).toBe(
      `got {"token" : "${redacted}", "a": "b"} back`,
    );
    expect(s.text("sent 'Authorization' : 'Token abc-def.ghi', then")).toBe(
      `sent 'Authorization' : 'Token ${redacted}', then`,
    );
    expect(s.text('Proxy-Authorization: Basic abc def')).toBe(`Proxy-Authorization: Basic ${redacted}`);
    expect(s.text('Authorization: abc1 def')).toBe(`Authorization: ${redacted}`);
    expect(s.text('  X-Merchant-Key:\tmk 1\nnext: line')).toBe(`  X-Merchant-Key:\t${redacted}\nnext: line`);
    expect(s.text('a=1;token=t1 b,otp=2&x=3 ?state=s1&code=GHS')).toBe(
      `a=1;token=${redacted} b,otp=${redacted}&x=3 ?state=${redacted}&code=GHS`,
    );
    // state=, key= are secrets after ? or & only
    expect(s.text('state=s1 ;key=k1')).toBe('state=s1 ;key=k1');
  });
});

describe('hostile values', () => {
  it('an Authorization of one word has no scheme to keep: all of it is replaced, and learned whole', () => {
    const s = new Secrets();
    expect(
      s.headers({ Authorization: 'rawkey-0001', 'Proxy-Authorization': 'Bearer  two-0002\nthree-0003' }),
    ).toEqual({ Authorization: redacted, 'Proxy-Authorization': `Bearer  ${redacted}` });
    const har = { headers: [{ name: 'authorization', value: 'rawkey-0004' }] };
    s.learn(har);
    expect(s.value(har)).toEqual({ headers: [{ name: 'authorization', value: redacted }] });
    expect(s.text('echoed rawkey-0004 back')).toBe(`echoed ${redacted} back`);
  });

  it('two secrets, one the start of the other, registered shortest first: the longer one’s base64 goes whole', () => {
    const s = new Secrets();
    s.register('abcdef');
    s.register('abcdefghijkl');
    expect(s.text(`data ${b64('abcdefghijkl')} end`)).toBe(`data ${redacted} end`);
    // every time it appears, not the first only
    expect(s.text(`${b64('abcdefghijkl')},${b64('abcdefghijkl')}`)).toBe(`${redacted},${redacted}`);
    expect(s.text(`data ${b64('abcdefzzz')} end`)).toBe(`data ${redacted}${b64('abcdefzzz').slice(8)} end`);
  });

  it('a secret registered after another whose URL spelling it is: its own spellings and base64 go too', () => {
    const s = new Secrets();
    s.register('sec ret/0001');
    s.register('sec%20ret%2F0001');
    expect(s.text(`a ${b64('xx sec%20ret%2F0001 yy')} b`)).not.toMatch(b64('sec%20ret%2F0001').slice(0, 8));
    expect(s.text('a sec%2520ret%252F0001 b')).toBe(`a ${redacted} b`);
  });

  it('a short secret (no base64 piece) leaves every other word as it was, the word undefined too', () => {
    const s = new Secrets();
    s.register('4821');
    expect(s.text('the field is undefined, pin 4821: {null} [] ?&')).toBe(
      `the field is undefined, pin ${redacted}: {null} [] ?&`,
    );
  });

  it('a body that only reads as base64 is left as it was; a binary base64 body without a secret byte for byte', () => {
    const s = new Secrets();
    // no encoding said: the text is the body itself, a word that happens to be the base64 of a secret's pair
    const plain = { mimeType: 'text/plain', text: b64('token=abc12345') };
    expect(s.value(plain)).toEqual(plain);
    // bytes that are not UTF-8 (an image): decoding and encoding them again would change them
    const binary = {
      encoding: 'base64',
      text: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x80, 0x00, 0xfe]).toString('base64'),
    };
    expect(s.value(binary)).toEqual(binary);
    // base64 said but no text: nothing to decode, and nothing thrown
    expect(s.value({ encoding: 'base64', size: 0 })).toEqual({ encoding: 'base64', size: 0 });
    s.learn({ content: { encoding: 'base64', size: 0 } });
  });

  it('a body that is JSON but no object or array is left byte for byte', () => {
    const s = new Secrets();
    for (const t of ['1.50', ' 42\n', 'true ', '"a b"', '{', '['] as const) expect(s.text(t), t).toBe(t);
  });

  it('cookies and headers are read as such under those very keys, not under a key that holds the word', () => {
    const s = new Secrets();
    const doc = {
      mycookies: [{ name: 'theme', value: 'ck-not-0001' }],
      cookiesx: [{ name: 'theme', value: 'ck-not-0002' }],
      myheaders: [{ name: 'X-Auth-Thing', value: 'hd-not-0003' }],
      headersx: [{ name: 'X-Auth-Thing', value: 'hd-not-0004' }],
    };
    s.learn(doc);
    expect(s.value(doc)).toEqual(doc);
    for (const v of ['ck-not-0001', 'ck-not-0002', 'hd-not-0003', 'hd-not-0004'])
      expect(s.text(`a ${v} b`), v).toBe(`a ${v} b`);
    // a cookie without a value gets none
    expect(s.value({ cookies: [{ name: 'empty' }] })).toEqual({ cookies: [{ name: 'empty' }] });
  });

  it('a secret that spells a field the journal keeps: the field keeps its name and value, a copy elsewhere goes', () => {
    const s = new Secrets();
    s.register('hash_token');
    s.register('h-0123456789');
    expect(
      s.byValue(
        { hash_token: 'h-0123456789', note: 'hash_token h-0123456789', list: ['h-0123456789', 7, null] },
        new Set(['hash_token']),
      ),
    ).toEqual({ hash_token: 'h-0123456789', note: `${redacted} ${redacted}`, list: [redacted, 7, null] });
  });
});

describe('text spaced, quoted and line-ended oddly', () => {
  it('an Authorization anywhere, a scheme, a header line, JSON in text and a multipart body', () => {
    const s = new Secrets();
    const cases: [string, string][] = [
      // in the middle of a line, after the header's name, even a word of prose is the credential
      ['sent authorization: Bearer generated, then', `sent authorization: Bearer ${redacted}, then`],
      ['sent Authorization:Bearer  generated x', `sent Authorization:Bearer  ${redacted} x`],
      ["sent 'authorization' = 'Token generated' x", `sent 'authorization' = 'Token ${redacted}' x`],
      ['Authorization: Bearer  abc def', `Authorization: Bearer  ${redacted}`],
      // a header line of another name that holds the word: its whole value, no scheme kept
      ['X-Upstream-Authorization: Bearer 1abc def', `X-Upstream-Authorization: ${redacted}`],
      ['Authorization-Key: Bearer 1abc def', `Authorization-Key: ${redacted}`],
      // a scheme's name only as a word of its own, then any blanks
      ['myToken abc123def', 'myToken abc123def'],
      ['Bearer  abc123def', `Bearer  ${redacted}`],
      ['X-Merchant-Key:mk 1', `X-Merchant-Key:${redacted}`],
      ['X-Merchant-Key\t: mk 1', `X-Merchant-Key\t: ${redacted}`],
      ['got {"token":"t-1", broken', `got {"token":"${redacted}", broken`],
      ['[ {"otp": "123"} ]', `[{"otp":"${redacted}"}]`],
      [
        '--b\nContent-Disposition:form-data;name="otp"\nContent-Type: text/plain\n\n918273\n--b--',
        `--b\nContent-Disposition:form-data;name="otp"\nContent-Type: text/plain\n\n${redacted}\n--b--`,
      ],
    ];
    for (const [text, want] of cases) expect(s.text(text), text).toBe(want);
  });
});

describe('mask and fingerprint', () => {
  it('shows the ends of a long secret, stars for a short one, a stable digest', () => {
    expect(mask('mk_live_0123456789')).toBe('mk_…789');
    expect(mask('12345678')).toBe('********');
    expect(mask('123456789')).toBe('123…789');
    expect(mask('')).toBe('');
    expect(mask(undefined)).toBe('');
    expect(fingerprint('abc')).toBe('sha256:ba7816bf8f01');
  });
});
