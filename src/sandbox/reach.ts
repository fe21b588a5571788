// Who can reach a sandbox from the address it listens on, and the URL to use for it on this machine.
import net from 'node:net';
import { isLoopback } from '../api/base-url.js';

export interface Reach {
  /** a loopback address: this machine alone */
  loopback: boolean;
  /** an unspecified address: every interface */
  everywhere: boolean;
  /** the URL to use on this machine */
  usable: string;
}

/**
 * Who can reach the sandbox, and the URL to use on this machine. Any address that is not loopback (0,
 * 0.0.0.0, ::, ::ffff:0.0.0.0, an interface's) is reachable from other machines; an unspecified one
 * listens on every interface, and is reached here on 127.0.0.1, since mpay refuses plain http to an
 * address that is not loopback.
 */
export function reachOf(host: string, url: string): Reach {
  const bare = host.replace(/^\[|\]$/g, '');
  const loopback = isLoopback(bare) || bare === '::1';
  const everywhere =
    !loopback && (net.isIP(bare) === 0 ? bare === '0' : /^(0\.0\.0\.0|::|::ffff:0\.0\.0\.0|0+)$/.test(bare));
  const usable = everywhere ? url.replace(/\/\/(\[[^\]]*\]|[^/:]+):/, '//127.0.0.1:') : url;
  return { loopback, everywhere, usable };
}
