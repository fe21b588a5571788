// Which requests move money, decided on the URL that goes out on the wire, whatever spelling built it: a
// path with doubled slashes, dot segments, percent-escapes, another case, a trailing slash or a query is
// the same endpoint to a server (nginx merges slashes, a router may ignore case), so it is the same endpoint
// here. The sender (sender.ts) sends none of these without a ticket of the money gate (ticket.ts).
import { endpointList, type MoneyStep } from './endpoints.js';
import type { PaymentKind } from './enums.js';

export type { MoneyStep };

export interface MoneyEndpoint {
  /** relative to /restapi/v1/ */
  path: string;
  /** the kind the endpoint itself names; status and wallet updates serve both */
  kind?: PaymentKind;
  step: MoneyStep;
}

/** The spec's six endpoints that make or move a payment: the table's (api/endpoints.ts) with `money`. */
export const moneyEndpoints: readonly MoneyEndpoint[] = endpointList.flatMap((e) =>
  e.money ? [{ path: e.path, step: e.money.step, ...(e.money.kind && { kind: e.money.kind }) }] : [],
);

/**
 * The path of a URL as a server would route it: percent-escapes decoded (an undecodable one kept), dot
 * segments resolved, empty segments dropped, lower case, no query or fragment, no trailing slash.
 */
export function routedPath(url: string | URL): string {
  const u = typeof url === 'string' ? new URL(url) : url;
  const out: string[] = [];
  for (const raw of u.pathname.split('/')) {
    let seg = raw;
    try {
      seg = decodeURIComponent(raw);
    } catch {
      // a lone % stays as it is
    }
    // A decoded segment may hold slashes and dots of its own: each piece is a segment to a lenient server.
    for (const piece of seg.split(/[/\\]/)) {
      if (piece === '' || piece === '.') continue;
      if (piece === '..') out.pop();
      else out.push(piece.toLowerCase());
    }
  }
  return out.join('/');
}

/**
 * The money endpoint a URL reaches, if any. Any path that ends in one of the six (after /restapi/v1/ or
 * not: a base URL may carry a prefix of its own) counts, whatever the method: when in doubt, it is money.
 */
export function moneyEndpointOf(url: string | URL): MoneyEndpoint | undefined {
  const path = `/${routedPath(url)}`;
  // With the slash before it, no endpoint's path ends another's: at most one matches.
  return moneyEndpoints.find((e) => path.endsWith(`/${e.path}`));
}
