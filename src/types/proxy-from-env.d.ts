declare module 'proxy-from-env' {
  /** The proxy URL for a URL from HTTP(S)_PROXY, ALL_PROXY and NO_PROXY, or '' for none. */
  export function getProxyForUrl(url: string): string;
}
