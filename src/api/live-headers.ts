// The two headers between mpay and an mpay proxy in front of a live server (proxy/forwarder.ts): the proxy
// says in every answer that its upstream is live, and forwards a money request only when mpay says the
// person confirmed it (the money gate's ticket was issued for a live server).

/** On every answer of an mpay proxy whose upstream is live: `mpay-upstream: live`. */
export const upstreamHeader = 'mpay-upstream';
/** On a money request whose ticket was confirmed for a live server: `mpay-live-confirmed: yes`. */
export const liveConfirmedHeader = 'mpay-live-confirmed';
