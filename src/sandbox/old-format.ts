// A read-only importer of the sandbox's data files from before SQLite (tx-store.ts writes what it reads into a
// new database and keeps the old file beside it): format 2, a header line and a log of JSON lines (one
// per change; its FILE.snapshot only repeated the log's state, so the log alone is read), and version 1,
// the whole state as one JSON object. The values format 2 derived from a transaction's index (uuid,
// transaction_id, hash_token) are derived again from the file's secret, so what was handed out still holds.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DataFileError, type Imported } from './tx-store.js';
import type { StoredTransaction } from './state.js';

type Line = unknown[];
const iso = (ms: unknown) => (typeof ms === 'number' ? new Date(ms).toISOString() : undefined);

/** The fields of a format 2 line from `at` on that change after initiate. */
function applyMutable(tx: StoredTransaction, line: Line, at: number): void {
  const [status, gateway, wallet, otp, paid, processed] = line.slice(at);
  Object.assign(tx, { status: String(status), gateway_id: gateway ?? undefined });
  Object.assign(tx, { wallet_address: wallet ?? undefined, otp_sent: otp ? true : undefined });
  Object.assign(tx, { paid: paid ? true : undefined, processed_at: iso(processed) });
}

/** Reads an old data file; `log` is told of a cut last line dropped. */
export function readOldFormat(file: string, log: (line: string) => void): Imported {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  let header: Record<string, unknown> = {};
  try {
    header = JSON.parse(lines[0]!) as Record<string, unknown>;
  } catch {
    // a whole-state file (version 1) of many lines, or not one: told below
  }
  if (header.mpay_sandbox !== 2) {
    try {
      header = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new DataFileError(file, 'not a sandbox data file, nor a database (no header line)');
    }
    if (header.version === 1 && Array.isArray(header.transactions)) return version1(file, header);
    throw new DataFileError(
      file,
      `a sandbox data file of ${'version' in header ? `version ${JSON.stringify(header.version)}` : `format ${JSON.stringify(header.mpay_sandbox)}`}, which this mpay does not read`,
    );
  }
  const mac = (label: string, i: number) =>
    createHmac('sha256', Buffer.from(String(header.secret), 'hex'))
      .update(`${label}${i}`)
      .digest('hex');
  const out: Imported = { format: 2, transactions: [], tokens: [], balances: {}, seq: 0 };
  const tokens = new Set<string>();
  const last = lines.length - (lines.at(-1) === '' ? 2 : 1);
  for (let n = 1; n <= last; n++) {
    let line: Line;
    try {
      line = JSON.parse(lines[n]!) as Line;
      if (!Array.isArray(line)) throw new Error('not a record of the sandbox');
    } catch (err) {
      if (n === last && !text.endsWith('\n')) {
        log(`${file}: its last line, cut by an interrupted write (${lines[n]!.length} bytes), was left out`);
        break;
      }
      throw new DataFileError(file, `line ${n + 1}: ${(err as Error).message}`);
    }
    const [op, i] = line as [string, number];
    if (op === 't') {
      const given = line[19] as string[] | null;
      const h = mac('u', i);
      const tx: StoredTransaction = {
        id: Number(line[2]),
        uuid:
          given?.[0] ??
          `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[parseInt(h[16]!, 16) & 3]}${h.slice(17, 20)}-${h.slice(20, 32)}`,
        transaction_id:
          given?.[1] ??
          `TXN${Number(line[12]).toString(36).toUpperCase()}${mac('t', i).slice(0, 6).toUpperCase()}`,
        hash_token: given?.[2] ?? `${i.toString(16).padStart(12, '0')}${mac('h', i).slice(0, 52)}`,
        kind: line[3] ? 'withdraw' : 'deposit',
        status: '',
        reference: String(line[4]),
        amount: Number(line[9]),
        currency_code: String(line[10]),
        country_code: String(line[11]),
        customer: { first_name: String(line[5]), phone: String(line[7]), email: String(line[8]) },
        created_at: iso(line[12])!,
      };
      if (line[6] !== null) tx.customer.last_name = String(line[6]);
      applyMutable(tx, line, 13);
      out.transactions[i] = tx;
      out.seq = Math.max(out.seq, tx.id);
    } else if (op === 'u') {
      if (!out.transactions[i])
        throw new DataFileError(file, `line ${n + 1}: a change of transaction ${i}, which is not there`);
      applyMutable(out.transactions[i], line, 2);
    } else if (op === 'k') tokens.add(String(i));
    else if (op === 'r') tokens.clear();
    else if (op === 'b') out.balances[String(i)] = Number(line[2]);
    else throw new DataFileError(file, `line ${n + 1}: not a record of the sandbox`);
  }
  out.tokens = [...tokens];
  out.transactions = out.transactions.filter(Boolean);
  return out;
}

/** A whole-state file of version 1: its transactions keep the values they were handed out with. */
function version1(file: string, data: Record<string, unknown>): Imported {
  const transactions = data.transactions as StoredTransaction[];
  if (!transactions.every((t) => t && typeof t.hash_token === 'string' && t.customer))
    throw new DataFileError(file, 'a version 1 file whose transactions cannot be read');
  return {
    format: 1,
    transactions,
    tokens: ((data.tokens as unknown[] | undefined) ?? []).map(String),
    balances: (data.balances as Record<string, number> | undefined) ?? {},
    seq: Number(data.seq) || 0,
  };
}
