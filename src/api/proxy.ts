// HTTPS_PROXY / HTTP_PROXY / NO_PROXY, which got does not read by itself. proxy-from-env applies the
// usual rules (NO_PROXY lists, lower and upper case names); hpagent tunnels through the proxy.
import { HttpProxyAgent, HttpsProxyAgent } from 'hpagent';
import { getProxyForUrl } from 'proxy-from-env';

export function proxyFor(url: string): string | undefined {
  return getProxyForUrl(url) || undefined;
}

export function proxyAgents(url: string): { http?: HttpProxyAgent; https?: HttpsProxyAgent } | undefined {
  const proxy = proxyFor(url);
  if (!proxy) return undefined;
  return url.startsWith('https:')
    ? { https: new HttpsProxyAgent({ proxy, keepAlive: false }) }
    : { http: new HttpProxyAgent({ proxy, keepAlive: false }) };
}
