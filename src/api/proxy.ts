// HTTPS_PROXY / HTTP_PROXY / NO_PROXY, which got does not read by itself. proxy-from-env applies the
// usual rules (NO_PROXY lists, lower and upper case names); hpagent tunnels through the proxy.
import { HttpProxyAgent, HttpsProxyAgent } from 'hpagent';
import { getProxyForUrl } from 'proxy-from-env';
import { isLoopback } from './base-url.js';

/**
 * The proxy for a URL, if any. A plain http URL (loopback only: api/base-url.ts) never goes through a proxy
 * that is not itself on loopback: the merchant key would travel to it in the clear.
 */
export function proxyFor(url: string): string | undefined {
  const proxy = getProxyForUrl(url) || undefined;
  if (!proxy || !url.startsWith('http:')) return proxy;
  try {
    return isLoopback(new URL(proxy).hostname) ? proxy : undefined;
  } catch {
    return undefined;
  }
}

export function proxyAgents(url: string): { http?: HttpProxyAgent; https?: HttpsProxyAgent } | undefined {
  const proxy = proxyFor(url);
  if (!proxy) return undefined;
  return url.startsWith('https:')
    ? { https: new HttpsProxyAgent({ proxy, keepAlive: false }) }
    : { http: new HttpProxyAgent({ proxy, keepAlive: false }) };
}
