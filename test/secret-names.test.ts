// The one list of what is a secret by its name or its value (api/secret-names.ts), as the scrubber, the
// client's registering of an answer's secrets and --save-scenario read it: every listed name in the
// spellings a header, a query parameter or a field gives it, the word rule (`*_key`, a secret word among
// others), the names of a transaction that only look like a token, and the values an answer hands out.
import { describe, expect, it } from 'vitest';
import { redacted, Secrets } from '../src/api/redact.js';
import {
  isSecretName,
  isSecretValue,
  registerAnswerSecrets,
  registerSecretsIn,
} from '../src/api/secret-names.js';

describe('a secret by its name', () => {
  // each name of the list, written as one word (no separator for the word rule to split at), as a header
  // or a field has it
  const oneWord = [
    'MerchantKey',
    'apikey',
    'ApiUser',
    'apisecret',
    'secretkey',
    'PrivateKey',
    'accesskey',
    'clientsecret',
    'Secret',
    'signingkey',
    'encryptionkey',
    'Token',
    'accesstoken',
    'refreshtoken',
    'idtoken',
    'authtoken',
    'bearertoken',
    'sessiontoken',
    'csrftoken',
    'xsrftoken',
    'JWT',
    'Bearer',
    'Authorization',
    'Proxy-Authorization',
    'code_verifier',
    'password',
    'passwd',
    'pass',
    'pwd',
    'passphrase',
    'passcode',
    'OTP',
    'otpcode',
    'onetimecode',
    'one-time-password',
    'verification_code',
    'pin',
    'pincode',
    'CVV',
    'cvc',
    'session',
    'sessionid',
    'Cookie',
    'Set-Cookie',
    'signature',
  ];
  it.each(oneWord)('%s', (name) => {
    expect(isSecretName(name)).toBe(true);
  });

  it('folded: any case, any separator, an X- or x_ prefix, spaces around', () => {
    for (const n of [
      'SET_COOKIE',
      'set.cookie',
      'set cookie',
      ' Set-Cookie ',
      ' X-Authorization',
      'X-Authorization',
      'x_authorization',
      'X-Api-User',
      'x-jwt',
      'X-Session-Id',
    ])
      expect(isSecretName(n), n).toBe(true);
    // the prefix is an X and a separator at the start only: an x- or x_ inside a name stays in it
    for (const n of ['xjwtx', 'Xcookie', 'ax-jwt', 'X--pwdx', 'jx-wt', 'Otx_P', 'coox-kie'])
      expect(isSecretName(n), n).toBe(false);
    // what is printed: such a field's value left readable, an X- secret's replaced
    expect(new Secrets().value({ 'jx-wt': 'kept-jx-1', Otx_P: 'kept-otx-2', 'X-Jwt': 'ey.J0.x' })).toEqual({
      'jx-wt': 'kept-jx-1',
      Otx_P: 'kept-otx-2',
      'X-Jwt': redacted,
    });
  });

  it('the word rule: a secret word among others, any *_key, camel case and capitals split into words', () => {
    for (const n of [
      'merchant_secret_key',
      'APIToken',
      'v2Token',
      'userPIN',
      'card-pin',
      'my.otp',
      'webhook signature',
      'resetPassword',
      'primary_key',
      'webhookSigningKey',
      'Customer-Key',
    ])
      expect(isSecretName(n), n).toBe(true);
    for (const n of [
      'key',
      '_key',
      '_key_',
      'key_id',
      'keyName',
      'monkey',
      'pinned',
      'spin',
      'tokens',
      'passport',
      '',
    ])
      expect(isSecretName(n), n).toBe(false);
  });

  it("a transaction's hash token and whether it has one are no secrets, however written", () => {
    for (const n of ['hash_token', 'HashToken', 'X-Hash-Token', 'has_token', 'hasToken'])
      expect(isSecretName(n), n).toBe(false);
  });
});

describe('a secret by its value', () => {
  it('a live secret key or a signing secret, at a word start, again and again', () => {
    expect(isSecretValue('key: sk_live_51Habc-_9')).toBe(true);
    // the same pattern asked again: no state kept between two questions
    expect(isSecretValue('sk_live_x')).toBe(true);
    expect(isSecretValue('whsec_1')).toBe(true);
    for (const v of ['sk_test_51Habc', 'ask_live_x', '9whsec_1', 'sk_live_', 'whsec'])
      expect(isSecretValue(v), v).toBe(false);
  });
});

describe('the secrets an answer or a recorded request holds', () => {
  const found = (f: (register: (s: string) => void) => void) => {
    const out: string[] = [];
    f((s) => out.push(s));
    return out;
  };

  it('every value under a secret name at any depth (numbers too), and every secret-shaped value', () => {
    const body = {
      data: {
        token: 'tok-1',
        pin: 4321,
        list: [{ api_key: 'k-2' }, 'note sk_live_abc and whsec_def'],
        otp: ['111', '222'],
        merchant_key: '***',
        amount: 12,
        has_token: true,
        hash_token: 'HASH-3',
        flag: true,
      },
    };
    expect(found((r) => registerSecretsIn(body, r)).sort()).toEqual(
      ['tok-1', '4321', 'k-2', 'sk_live_abc', 'whsec_def', '111', '222'].sort(),
    );
    expect(found((r) => registerSecretsIn('sk_live_top', r))).toEqual(['sk_live_top']);
    expect(found((r) => registerSecretsIn(42, r))).toEqual([]);
    expect(found((r) => registerSecretsIn(null, r))).toEqual([]);
  });

  it("an answer's JSON text: its secrets, never its `errors` messages; not JSON: nothing", () => {
    const answer = JSON.stringify({
      success: false,
      message: 'The selected merchant key is invalid.',
      token: 'tok-top',
      errors: { merchant_key: ['The selected merchant key is invalid.'], token: 'expired token' },
      data: { errors: { token: 'tok-deep' } },
    });
    expect(found((r) => registerAnswerSecrets(`\n  ${answer}`, r)).sort()).toEqual(['tok-deep', 'tok-top']);
    expect(found((r) => registerAnswerSecrets('[{"token":"in-array"},"sk_live_inarray"]', r))).toEqual([
      'in-array',
      'sk_live_inarray',
    ]);
    expect(found((r) => registerAnswerSecrets('{"token": "cut', r))).toEqual([]);
    expect(found((r) => registerAnswerSecrets('token=abc sk_live_plain', r))).toEqual([]);
    expect(found((r) => registerAnswerSecrets('"sk_live_string"', r))).toEqual([]);
    // an answer of JSON that is no object nor array (null, a number, a boolean): nothing, and no failure
    for (const t of ['null', ' 42', 'true', 'nul'])
      expect(
        found((r) => registerAnswerSecrets(t, r)),
        t,
      ).toEqual([]);
  });

  it('what is registered is scrubbed from what mpay writes', () => {
    const s = new Secrets();
    registerAnswerSecrets('{"data":{"token":"tok-scrubbed-0001","pin":98765}}', (v) => s.register(v));
    expect(s.text('got tok-scrubbed-0001 and 98765')).toBe('got *** and ***');
  });
});
