// The one list of what looks like a secret (issue 46): by its name, and by its value. The scrubber
// (api/redact.ts) reads it for every output mpay writes, `mpay replay --save-scenario` to leave such fields
// out of a saved scenario, and every answer the client reads registers the values it finds under these
// names with the run's Secrets (registerSecretsIn), so that a token an answer hands out (a scenario's
// capture, a replay's, the proxy's) is scrubbed by value from then on, wherever it is copied.

/**
 * The names of secrets, folded (lower case, no separators, no X- prefix), whole: keys, bearer and access
 * tokens, secrets, passwords, one-time codes and PINs, sessions and cookies, signatures. The word rule
 * below (secretWords, `*_key`) finds the others however they are spelled.
 */
export const secretNames: readonly string[] = [
  // keys
  'merchantkey',
  'apikey',
  'apiuser',
  'apisecret',
  'secretkey',
  'privatekey',
  'accesskey',
  'clientsecret',
  'secret',
  'signingkey',
  'encryptionkey',
  // tokens
  'token',
  'accesstoken',
  'refreshtoken',
  'idtoken',
  'authtoken',
  'bearertoken',
  'sessiontoken',
  'csrftoken',
  'xsrftoken',
  'jwt',
  'bearer',
  'authorization',
  'proxyauthorization',
  'codeverifier',
  // passwords
  'password',
  'passwd',
  'pass',
  'pwd',
  'passphrase',
  'passcode',
  // one-time codes and PINs
  'otp',
  'otpcode',
  'onetimecode',
  'onetimepassword',
  'verificationcode',
  'pin',
  'pincode',
  'cvv',
  'cvc',
  // sessions, cookies, signatures
  'session',
  'sessionid',
  'cookie',
  'setcookie',
  'signature',
];

/**
 * A name holding one of these as a word (merchant_secret_key, x_signing_secret, resetPassword, otp_code,
 * card-pin) is a secret's, whatever else it holds.
 */
export const secretWords: readonly string[] = ['secret', 'password', 'token', 'signature', 'otp', 'pin'];

/**
 * Names the word rule would take that name a transaction, not a secret: shown (folded, as secretNames).
 * A transaction's `hash_token` is how a person finds it; `has_token` says whether it has one.
 */
export const notSecretNames: readonly string[] = ['hashtoken', 'hastoken'];

/**
 * Values that are secrets whatever they are called: a payment provider's live secret key (`sk_live_…`),
 * a webhook's signing secret (`whsec_…`). Bearer credentials are found by their scheme (redact.ts).
 */
export const secretValuePrefixes: readonly string[] = ['sk_live_', 'whsec_'];

/** Every value of a secret-shaped prefix in a text, the prefix and what follows it up to a non-word. */
export const secretValuePattern = new RegExp(
  `(?<![A-Za-z0-9])(?:${secretValuePrefixes.join('|')})[A-Za-z0-9_-]+`,
  'g',
);

const secretSet = new Set(secretNames);
const exceptions = new Set(notSecretNames);
const wordSet = new Set(secretWords);

/** A name as the list holds it: lower case, without separators or an X- prefix. */
export function foldName(name: string): string {
  return name
    .trim()
    .replace(/^x[-_]/i, '')
    .replace(/[-_.\s]/g, '')
    .toLowerCase();
}

/** A name's words: split at separators and where a lower case letter or digit meets a capital. */
export function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1 $2')
    .split(/[-_.\s]/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

/** Whether a header, query parameter or field of this name holds a secret (the list, the word rule). */
export function isSecretName(name: string): boolean {
  const folded = foldName(name);
  if (secretSet.has(folded)) return true;
  if (exceptions.has(folded)) return false;
  const words = wordsOf(name);
  // every *_key (merchant_key, primary_key, webhookSigningKey): a key of something
  if (words.length > 1 && words.at(-1) === 'key') return true;
  return words.some((w) => wordSet.has(w));
}

/** Whether a value is a secret by its shape alone (secretValuePrefixes). */
export function isSecretValue(value: string): boolean {
  secretValuePattern.lastIndex = 0;
  const found = secretValuePattern.test(value);
  secretValuePattern.lastIndex = 0;
  return found;
}

/**
 * Registers every value under a secret's name in a JSON-like value (an answer's body, a recorded request),
 * at any depth, and every secret-shaped value, with `register` (the run's Secrets). Numbers too: a PIN
 * may be one.
 */
export function registerSecretsIn(value: unknown, register: (secret: string) => void, key?: string): void {
  if (typeof value === 'string' || typeof value === 'number') {
    const text = String(value);
    if (key && isSecretName(key) && text !== '***') register(text);
    // a secret-shaped value in it (a number's text never holds one)
    for (const m of text.matchAll(secretValuePattern)) register(m[0]);
    return;
  }
  if (Array.isArray(value)) for (const v of value) registerSecretsIn(v, register, key);
  // any other value that is not null (an object; a boolean has no entries)
  else if (value) for (const [k, v] of Object.entries(value)) registerSecretsIn(v, register, k);
}

/** The secrets of an answer's text, when it is JSON: registered (registerSecretsIn). */
export function registerAnswerSecrets(text: string, register: (secret: string) => void): void {
  const t = text.trimStart();
  if (!t.startsWith('{') && !t.startsWith('[')) return;
  let doc: object; // an object or an array: JSON text that starts with `{` or `[`
  try {
    doc = JSON.parse(text) as object;
  } catch {
    return; // not JSON: nothing named in it
  }
  // An answer's `errors` holds the API's messages about each field ("The selected merchant key is
  // invalid."), not the field's value: a message is no secret, and registering it would mask it
  // everywhere. A value the server echoes there is still scrubbed by name where it is printed. An
  // array's entries are read under their indexes, no secret's names.
  for (const [k, v] of Object.entries(doc)) if (k !== 'errors') registerSecretsIn(v, register, k);
}
