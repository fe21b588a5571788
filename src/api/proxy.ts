// HTTPS_PROXY / HTTP_PROXY / ALL_PROXY / NO_PROXY, which got does not read by itself; hpagent tunnels
// through the proxy. The variables are the run's (the Factory's environ), never process.env read here, so
// that a test or an embedding runs with variables of its own. The rules are those of proxy-from-env
// (lower case first, a NO_PROXY entry is a host, a .suffix or *.suffix, with an optional :port, or *),
// which reads only process.env and so could not be given the run's.
import { HttpProxyAgent, HttpsProxyAgent } from 'hpagent';
import { isLoopback } from './base-url.js';

/**
 * The proxy for a URL, if any. A plain http URL (loopback only: api/base-url.ts) never goes through a proxy
 * that is not itself on loopback: the merchant key would travel to it in the clear.
 */
export function proxyFor(url: string, env: NodeJS.ProcessEnv): string | undefined {
  const proxy = proxyFromEnv(url, env);
  if (!proxy || !url.startsWith('http:')) return proxy;
  try {
    return isLoopback(new URL(proxy).hostname) ? proxy : undefined;
  } catch {
    return undefined;
  }
}

export function proxyAgents(
  url: string,
  env: NodeJS.ProcessEnv,
): { http?: HttpProxyAgent; https?: HttpsProxyAgent } | undefined {
  const proxy = proxyFor(url, env);
  if (!proxy) return undefined;
  return url.startsWith('https:')
    ? { https: new HttpsProxyAgent({ proxy, keepAlive: false }) }
    : { http: new HttpProxyAgent({ proxy, keepAlive: false }) };
}

const defaultPorts: Record<string, number> = { http: 80, https: 443 };
const envOf = (env: NodeJS.ProcessEnv, name: string) =>
  env[name.toLowerCase()] || env[name.toUpperCase()] || '';

/** The proxy the environment names for a URL, unless NO_PROXY exempts its host. */
function proxyFromEnv(url: string, env: NodeJS.ProcessEnv): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  const proto = u.protocol.slice(0, -1);
  const port = Number(u.port) || defaultPorts[proto] || 0;
  if (exempt(u.hostname, port, envOf(env, 'no_proxy').toLowerCase())) return undefined;
  const proxy = envOf(env, `${proto}_proxy`) || envOf(env, 'all_proxy');
  if (!proxy) return undefined;
  return proxy.includes('://') ? proxy : `${proto}://${proxy}`;
}

function exempt(hostname: string, port: number, noProxy: string): boolean {
  if (!noProxy) return false;
  if (noProxy === '*') return true;
  return noProxy.split(/[,\s]/).some((entry) => {
    if (!entry) return false;
    const m = /^(.+):(\d+)$/.exec(entry);
    const host = m ? m[1]! : entry;
    if (m && Number(m[2]) !== port) return false;
    if (!/^[.*]/.test(host)) return hostname === host;
    return hostname.endsWith(host.startsWith('*') ? host.slice(1) : host);
  });
}
