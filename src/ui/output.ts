// Rendering of results: tables on a terminal, JSON and CSV for scripts. Every string that came from the
// server or the user passes through `clean` before it reaches a terminal, so none can carry an escape
// sequence. Knows no HTTP.
import { importLazily } from '../lazy-import.js';

// C0 controls but tab and newline, DEL, C1 controls, and the escape sequences they start.
const escapeSequence =
  // eslint-disable-next-line no-control-regex
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** A string safe to print on a terminal: escape and control characters become visible `\xNN` text. */
export function clean(text: string): string {
  return text.replace(escapeSequence, (m) =>
    [...m]
      .map((ch) =>
        ch.charCodeAt(0) < 0x20 || (ch.charCodeAt(0) >= 0x7f && ch.charCodeAt(0) <= 0x9f)
          ? `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`
          : ch,
      )
      .join(''),
  );
}

const loadTable = async () =>
  (await importLazily<{ default: typeof import('cli-table3') }>('cli-table3')).default;

export interface Column<T> {
  key: string;
  header?: string;
  get?: (row: T) => unknown;
}

export function cellText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** Flat key/value view of a row for --filter and --columns: nested objects as dotted keys. */
export function flatten(
  obj: unknown,
  prefix = '',
  out: Record<string, unknown> = {},
): Record<string, unknown> {
  if (obj && typeof obj === 'object' && !Array.isArray(obj)) {
    for (const [k, v] of Object.entries(obj as Record<string, unknown>))
      flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else {
    out[prefix] = obj;
  }
  return out;
}

/** Parses `--filter key=value` (several are ANDed; the match is case-insensitive and exact). */
export function parseFilters(filters: string[] | undefined): Array<[string, string]> {
  return (filters ?? []).map((f) => {
    const i = f.indexOf('=');
    if (i <= 0) throw new FilterSyntaxError(f);
    return [f.slice(0, i), f.slice(i + 1)];
  });
}

export class FilterSyntaxError extends Error {
  constructor(readonly filter: string) {
    super(`Invalid filter "${filter}": expected key=value`);
  }
}

export function applyFilters<T>(rows: T[], filters: Array<[string, string]>, columns: Column<T>[]): T[] {
  if (filters.length === 0) return rows;
  return rows.filter((row) => {
    const flat = flatten(row);
    return filters.every(([k, v]) => {
      const col = columns.find((c) => c.key === k);
      const value = col?.get ? col.get(row) : flat[k];
      return cellText(value).toLowerCase() === v.toLowerCase();
    });
  });
}

export function selectColumns<T>(columns: Column<T>[], wanted: string | undefined): Column<T>[] {
  if (!wanted) return columns;
  return wanted
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean)
    .map((k) => columns.find((c) => c.key === k) ?? { key: k });
}

function value<T>(row: T, c: Column<T>): unknown {
  return c.get ? c.get(row) : flatten(row)[c.key];
}

export async function renderTable<T>(rows: T[], columns: Column<T>[]): Promise<string> {
  const Table = await loadTable();
  const table = new Table({
    head: columns.map((c) => c.header ?? c.key),
    style: { head: [], border: [] },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  for (const row of rows) table.push(columns.map((c) => clean(cellText(value(row, c)))));
  return table.toString();
}

/** A two-column key/value table for one object. */
export async function renderRecord(obj: Record<string, unknown>): Promise<string> {
  const Table = await loadTable();
  const table = new Table({ style: { head: [], border: [] } });
  for (const [k, v] of Object.entries(flatten(obj)))
    if (v !== undefined && v !== null) table.push({ [k]: clean(cellText(v)) });
  return table.toString();
}

const csvCell = (s: string) => {
  // A leading = + - @ makes spreadsheets run a formula: quote it as text.
  const t = /^[=+\-@]/.test(s) && !/^[-+]?\d+(\.\d+)?$/.test(s) ? `'${s}` : s;
  return /[",\n\r]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t;
};

export function renderCsv<T>(rows: T[], columns: Column<T>[]): string {
  const lines = [columns.map((c) => csvCell(c.key)).join(',')];
  for (const row of rows) lines.push(columns.map((c) => csvCell(clean(cellText(value(row, c))))).join(','));
  return lines.join('\n');
}
