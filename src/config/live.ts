// Whether a server is live: a property of the server, not of the environment's name (docs/spec-readings.md).
// A server is live when any of these holds, whatever --env or MPAY_ENV says:
//   - the run names it as its live environment's server;
//   - any profile keeps it as its live base URL;
//   - it is not a loopback address, and no profile keeps it as its sandbox or stage base URL.
// So `--env sandbox --base-url B` with B a profile's live server is live, and an unknown remote server is
// live until a profile says it is a sandbox or stage (a refusal never suggests saying so). An mpay proxy on
// loopback in front of a live server says so in every answer, and the client learns it (api/sender.ts).
import { isLoopback, normalizeBaseUrl } from '../api/base-url.js';
import { defaultBaseUrls, type Profile } from './profile.js';

export interface ServerVerdict {
  server: string;
  live: boolean;
  /** why, in words, for the question and the refusal */
  why: string;
}

/**
 * A server as the machine reaches it, whatever spelling names it: the URL parser's own form of the host
 * (127.1 and 0x7f000001 are 127.0.0.1), every loopback name as one (localhost, 127.0.0.1, [::1]), the
 * scheme's port when none is written, and the path without /restapi/v1 or a trailing slash.
 */
export function serverKey(raw: string): string | undefined {
  let u: URL;
  try {
    u = new URL(normalizeBaseUrl(raw).url);
  } catch {
    return undefined;
  }
  const host = isLoopback(u.hostname) ? 'loopback' : u.hostname.toLowerCase();
  const port = u.port || (u.protocol === 'https:' ? '443' : '80');
  return `${u.protocol}//${host}:${port}${u.pathname.replace(/\/+$/, '')}`;
}

const same = (a: string, b: string) => {
  const k = serverKey(a);
  return k !== undefined && k === serverKey(b);
};

export function judgeServer(server: string, env: string, profiles: Record<string, Profile>): ServerVerdict {
  const entries = Object.entries(profiles);
  const keptAs = (which: 'live' | 'sandbox' | 'stage') =>
    entries.filter(([, p]) => p.baseUrls?.[which] && same(p.baseUrls[which], server)).map(([n]) => n);
  if (env === 'live') return { server, live: true, why: 'the run is in the live environment' };
  const asLive = keptAs('live');
  if (asLive.length) return { server, live: true, why: `profile ${asLive[0]} keeps it as its live server` };
  let host = '';
  try {
    host = new URL(server).hostname;
  } catch {
    // checkBaseUrl refuses it before anything is sent
  }
  if (isLoopback(host)) return { server, live: false, why: 'a loopback address' };
  const asTest = [...keptAs('sandbox'), ...keptAs('stage')];
  if (asTest.length) return { server, live: false, why: `profile ${asTest[0]} keeps it as a test server` };
  return {
    server,
    live: true,
    why: 'not a loopback address, and no profile keeps it as a sandbox or stage server',
  };
}

/**
 * Whether a server is a sandbox, where a recorded customer's data may be sent again: the sandbox
 * environment's own server (mpay sandbox's default address) or one a profile keeps as its sandbox. A
 * loopback address alone is not enough: a stage or live server may be tunnelled there.
 */
export function isSandboxServer(server: string, profiles: Record<string, Profile>): boolean {
  const sandboxes = [defaultBaseUrls.sandbox, ...Object.values(profiles).map((p) => p.baseUrls?.sandbox)];
  return sandboxes.some((s) => s !== undefined && same(s, server));
}
