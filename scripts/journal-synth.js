// A journal of N synthetic transactions, written as today's mpay writes its lines (one JSON event a line,
// the same fields in the same order), for the journal's tests and `npm run bench`. Seeded: the same seed
// gives the same bytes. Transactions overlap as a batch's do (several in flight at once), live at two
// places (servers), and some carry no place (lines written before mpay recorded one); withdrawals have
// their one-time code step; a share end in each outcome. Up to 8 are in flight at once, as in a batch.
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** mulberry32: a small seeded generator, as the sandbox's faults use. */
export function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const places = [
  { server: 'http://127.0.0.1:4010', merchant: 'sha256:3cfb64e3a237', profile: 'default', env: 'sandbox' },
  {
    server: 'https://stage.example.com',
    merchant: 'sha256:9a1f00c2d4e5',
    profile: 'default',
    env: 'sandbox',
  },
];
const names = ['Ama', 'Kofi', 'Zoë', 'Chinedu', 'Wanjiru', "O'Brien", 'Nguyễn', 'Fatou'];

/**
 * Writes `count` transactions to `file` (replacing it). Returns the references, in the order their first
 * lines were written (the order mpay lists them in, newest last), and the hash tokens of those that got one.
 */
export function writeJournal(
  file,
  { count, seed = 1, start = Date.parse('2026-01-01T00:00:00Z'), legacy = 0.05, place = places[0] },
) {
  const rand = seeded(seed);
  const placeHere = place;
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const fd = openSync(file, 'w', 0o600);
  let buf = '';
  const flush = (force) => {
    if (buf.length < 4 * 1024 * 1024 && !force) return;
    writeSync(fd, buf);
    buf = '';
  };
  let clock = start;
  const refs = [];
  const started = new Set();
  const hashes = new Map();
  // Transactions in flight: each a list of lines still to write.
  const flying = [];
  let made = 0;
  const line = (e) => {
    clock += 1 + Math.floor(rand() * 400);
    buf += `${JSON.stringify({ at: new Date(clock).toISOString(), ...e })}\n`;
    flush(false);
  };
  while (made < count || flying.length > 0) {
    // As a batch at concurrency 8 would: up to 8 transactions in flight, often fewer.
    if (made < count && flying.length < 1 + Math.floor(rand() * 8)) {
      const kind = rand() < 0.6 ? 'deposit' : 'withdraw';
      const reference = `mpay-${kind[0]}-${seed.toString(36)}-${made.toString(36).padStart(6, '0')}`;
      const place = rand() < legacy ? undefined : rand() < 0.9 ? placeHere : places[1];
      const hash = `${(made * 2654435761 + seed).toString(16).padStart(12, '0')}${Math.floor(rand() * 1e9).toString(16)}`;
      const who = names[Math.floor(rand() * names.length)];
      const data = {
        amount: String(5 + Math.floor(rand() * 500)),
        currency: ['GHS', 'NGN', 'KES', 'USD'][Math.floor(rand() * 4)],
        country: 'GH',
        customer: {
          first_name: who,
          last_name: 'Test',
          phone: '+233201234567',
          email: `${who.toLowerCase()}@example.com`,
        },
      };
      const base = { reference, kind, ...(place ? { place } : {}) };
      const steps = [];
      const end = rand();
      steps.push({ ...base, step: 'initiate', outcome: 'sent', data });
      if (end < 0.03)
        steps.push({ ...base, step: 'initiate', outcome: 'ambiguous', data: { error: 'socket hang up' } });
      else {
        steps.push({
          ...base,
          step: 'initiate',
          outcome: 'ok',
          hash_token: hash,
          data: { status: 'initiated' },
        });
        hashes.set(reference, hash);
        steps.push({
          ...base,
          step: 'gateway',
          outcome: 'ok',
          data: { gateway_id: 3, gateway_name: 'MTN Mobile Money' },
        });
        steps.push({ ...base, step: 'status', outcome: 'sent' });
        steps.push({ ...base, step: 'status', outcome: 'ok', data: { status: 'pending' } });
        if (end > 0.1) {
          if (kind === 'withdraw') steps.push({ ...base, step: 'otp', outcome: 'ok' });
          steps.push({ ...base, step: 'processed', outcome: 'sent' });
          steps.push({
            ...base,
            step: 'processed',
            outcome: end > 0.15 ? 'ok' : 'failed',
            data: end > 0.15 ? { status: 'success', transaction_id: `tx-${made}` } : { error: 'declined' },
          });
        }
      }
      flying.push(steps);
      made++;
    }
    const i = Math.floor(rand() * flying.length);
    const steps = flying[i];
    const next = steps.shift();
    if (!started.has(next.reference)) {
      started.add(next.reference);
      refs.push(next.reference);
    }
    line(next);
    if (steps.length === 0) flying.splice(i, 1);
  }
  flush(true);
  closeSync(fd);
  return { refs, hashes, end: clock };
}
