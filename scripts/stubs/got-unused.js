// Stands in, inside the bundle only, for the packages got loads for features mpay never turns on:
// HTTP/2 (http2-wrapper), response caching (cacheable-request) and DNS caching (cacheable-lookup).
// got touches them only when its `http2`, `cache` or `dnsCache` option is set; if that ever changes,
// these throw instead of failing silently. Evaluating them cost ~15 ms of every API command's start-up.
const unused = (name) => () => {
  throw new Error(`${name} is not bundled with mpay: got's http2, cache and dnsCache options are off`);
};
const Unused = (name) =>
  class {
    constructor() {
      unused(name)();
    }
  };

export default new Proxy(Unused('this got feature'), {
  get(target, prop) {
    if (prop === 'prototype' || prop === 'name' || prop === 'length') return Reflect.get(target, prop);
    return unused(`got feature ${String(prop)}`)();
  },
});
export class CacheError extends Error {}
