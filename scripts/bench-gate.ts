// What the money gate costs a money call beyond the journal's sync (docs/performance.md, "The money
// gate"): bundled and run by scripts/bench-gate.js. For each of `rounds` steps, the time of the journal's
// synced 'sent' line alone, and the time of the gate's whole passage (the lock taken, its owner file
// written, the 'sent' line, the ticket issued, verified on the request's URL and body as the sender
// does, then revoked and the lock released). The gate's own work is the difference.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTickets } from '../src/api/ticket.js';
import { MoneyGate } from '../src/flows/gate/money-gate.js';
import { Journal } from '../src/journal/journal.js';

const ms = (t: bigint) => Number(t) / 1e6;
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))]!;

export async function benchGate(rounds: number) {
  const dir = mkdtempSync(join(tmpdir(), 'mpay-bench-gate-'));
  const journal = new Journal(dir, 'default', 'sandbox');
  const tickets = runTickets();
  const gate = new MoneyGate('sandbox', { issue: tickets.issue });
  const url = 'http://127.0.0.1:4010/restapi/v1/payments/status/update';
  const sync: number[] = [];
  const passage: number[] = [];
  const held: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const at = {
      reference: `bench-${i}`,
      kind: 'deposit' as const,
      step: 'status' as const,
      hash_token: `h${i}`,
    };
    let t = process.hrtime.bigint();
    journal.append({ ...at, reference: `sync-${i}`, outcome: 'sent' });
    sync.push(ms(process.hrtime.bigint() - t));
    t = process.hrtime.bigint();
    const p = await gate.open(journal, undefined, at, 'bench');
    tickets.verify(p.ticket, {
      method: 'POST',
      url,
      body: { hash_token: `h${i}`, status: 'failed', gateway_id: 1 },
    });
    await p.close();
    passage.push(ms(process.hrtime.bigint() - t));
    // The same step with the transaction's lock already held by its flow (a guided flow, a batch row and
    // a resume hold it from their first step to their last): the gate only checks it.
    const release = await journal.hold(['transaction', '', '', `held-${i}`], 'bench');
    const ath = { ...at, reference: `held-${i}` };
    t = process.hrtime.bigint();
    const q = await gate.open(journal, undefined, ath, 'bench');
    tickets.verify(q.ticket, {
      method: 'POST',
      url,
      body: { hash_token: `h${i}`, status: 'failed', gateway_id: 1 },
    });
    await q.close();
    held.push(ms(process.hrtime.bigint() - t));
    await release();
  }
  const median = (xs: number[]) => quantile(xs, 0.5);
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return {
    rounds,
    journal_sync_ms: { median: r(median(sync)), p99: r(quantile(sync, 0.99)) },
    gate_passage_ms: { median: r(median(passage)), p99: r(quantile(passage, 0.99)) },
    gate_own_ms: {
      median: r(median(passage) - median(sync)),
      p99: r(quantile(passage, 0.99) - quantile(sync, 0.99)),
    },
    lock_held_passage_ms: { median: r(median(held)), p99: r(quantile(held, 0.99)) },
    lock_held_own_ms: {
      median: r(median(held) - median(sync)),
      p99: r(quantile(held, 0.99) - quantile(sync, 0.99)),
    },
  };
}
