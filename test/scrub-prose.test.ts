import { afterAll, beforeAll, expect, it } from 'vitest';
import { Secrets } from '../src/api/redact.js';
import { sandbox } from './helpers.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

it('text(): each spelling, one by one', () => {
  const s = new Secrets();
  const cases: [string, string][] = [
    ['?code=GHS&x=1', '?code=GHS&x=1'],
    ['a=1&code=gh', 'a=1&code=gh'],
    ['?code=USDT', '?code=USDT'],
    ['?code=%2B233', '?code=%2B233'],
    ['?code=123456', '?code=***'],
    ['?code=OAUTHcode9876', '?code=***'],
    ['token=abc123,next=1', 'token=***,next=1'],
    ['a=1,token=abc123', 'a=1,token=***'],
    ['X-Merchant-Key: mk_live_abc', 'X-Merchant-Key: ***'],
    ['X-Upstream-Token: abc123', 'X-Upstream-Token: ***'],
    ['Authorization: Bearer abc.def', 'Authorization: Bearer ***'],
    ['log: token: abc123 then', 'log: token: *** then'],
    ["the pin: '4711' given", "the pin: '***' given"],
    ['otp: 123456', 'otp: ***'],
    ['hash_token: HASH01 code: GHS', 'hash_token: HASH01 code: GHS'],
    ['Token generated successfully.', 'Token generated successfully.'],
  ];
  for (const [text, want] of cases) expect(s.text(text), text).toBe(want);
});
