// --debug shows the server's words about a secret's field (`{"errors":{"merchant_key":["The selected
// merchant key is invalid."]}}`): a message under a secret's name in an API's errors is not the secret.
// The secret itself still never shows: the key sent (by name in the request, by value anywhere), and a
// credential a server echoes under errors (one word, no message) is replaced by name.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliEnv, loopbackServer, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

const wrongKey = 'mk_WRONGkey0042abc';

/** The --debug lines of an answer's body (`< {…}`). */
const answerBodies = (stderr: string) => stderr.split('\n').filter((l) => /^< [{[]/.test(l));

it("--debug shows the sandbox's message about the merchant key, and never the key", async () => {
  const r = await mpay(['token', '--debug'], {
    env: cliEnv(sb, tempDir(), { MPAY_MERCHANT_KEY: wrongKey }),
  });
  expect(r.code, r.stderr).not.toBe(0);
  const bodies = answerBodies(r.stderr);
  expect(bodies.join('\n'), r.stderr).toContain('"merchant_key":["The selected merchant key is invalid."]');
  expect(r.stderr).toMatch(/"merchant_key":"\*\*\*"/); // the request's field, by name
  expect(r.stderr + r.stdout).not.toContain(wrongKey);
});

it('a credential a server echoes under errors is still replaced by name, its message kept', async () => {
  const echoed = 'mk_ECHOEDnotTheRuns77';
  const server = await loopbackServer((_req, res) => {
    res.writeHead(422, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        success: false,
        message: 'The given data was invalid.',
        errors: { merchant_key: [echoed], MerchantKey: 'The key is not active.', api_key: echoed },
      }),
    );
  });
  try {
    const r = await mpay(['token', '--debug'], {
      env: cliEnv(undefined, tempDir(), { MPAY_BASE_URL: server.url, MPAY_MERCHANT_KEY: wrongKey }),
    });
    expect(r.code, r.stderr).not.toBe(0);
    const body = answerBodies(r.stderr).join('\n');
    expect(body, r.stderr).toContain('"MerchantKey":"The key is not active."');
    expect(body).toContain('"merchant_key":"***"');
    expect(body).toContain('"api_key":"***"');
    expect(r.stderr + r.stdout).not.toContain(wrongKey);
    expect(body).not.toContain(echoed);
  } finally {
    await server.close();
  }
});
