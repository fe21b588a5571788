// Rendering of results: tables on a terminal, JSON and CSV for scripts. Every string that came from the
// server or the user passes through `clean` before it reaches a terminal, so none can carry an escape
// sequence. Knows no HTTP.
import { importLazily } from '../lazy-import.js';
import { clean } from '../io/clean.js';
import { foldCommand, foldProse } from '../io/fold.js';

/** A string safe to print on a terminal: escape and control characters become visible `\xNN` text. */
export { clean };
// already in the bundle (oclif's and cli-table3's), so no cost of its own
import stringWidth from 'string-width';

/**
 * JSON text with every C1 control, bidi and format character, and line separator written as a \uXXXX
 * escape: the same document for any parser, and nothing in it can drive a terminal it is printed on.
 */
export function jsonText(value: unknown, indent = 2): string {
  return (JSON.stringify(value, null, indent) ?? 'null').replace(
    /[\u007f-\u009f\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069\u2028\u2029]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

const loadTable = async () =>
  (await importLazily<{ default: typeof import('cli-table3') }>('cli-table3')).default;

export interface Column<T> {
  key: string;
  header?: string;
  get?: (row: T) => unknown;
  /** shown only with --wide (or when named by --columns) */
  wide?: boolean;
  /**
   * Its values are identifiers a person copies (a reference, a hash token, a profile name, a URL, a code,
   * an id): never cut, in a table or in its blocks. Cut, one would name nothing (`history show` finds no
   * reference that ends in `…`).
   */
  identifier?: boolean;
  /**
   * Left out when the table is wider than the terminal, before any other column is cut, and said in a
   * line under the table: a detail the person can ask for with --columns or --wide.
   */
  optional?: boolean;
  /**
   * Prose that may name identifiers (a problem that quotes a reference or a URL): folded at its spaces onto
   * more lines of its row when the table is wider than the terminal, never cut; the column is never
   * narrower than its longest word.
   */
  wrap?: boolean;
  /**
   * A shorter form of the value (a time without its year and seconds), shown when the table is wider than
   * the terminal, before the column is left out; the value is never cut, in either form.
   */
  short?: (row: T) => string;
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

export class UnknownKeyError extends Error {
  constructor(
    readonly what: 'column' | 'filter key',
    readonly unknown: string[],
    readonly known: string[],
  ) {
    super(`Unknown ${what}${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`);
  }
}

/**
 * Keeps the rows that match every filter. A filter key is a column's key or a field of the rows (nested
 * fields dotted: country.code); any other key is an error, never a silent empty result.
 */
export function applyFilters<T>(rows: T[], filters: Array<[string, string]>, columns: Column<T>[]): T[] {
  if (filters.length === 0) return rows;
  const known = new Set([...columns.map((c) => c.key), ...rows.flatMap((r) => Object.keys(flatten(r)))]);
  const unknown = filters.map(([k]) => k).filter((k) => !known.has(k));
  if (unknown.length > 0)
    throw new UnknownKeyError(
      'filter key',
      unknown,
      columns.map((c) => c.key),
    );
  return rows.filter((row) => matchesFilters(row, filters, columns));
}

/** Whether a row passes the filters (their keys already checked by applyFilters). */
export function matchesFilters<T>(row: T, filters: Array<[string, string]>, columns: Column<T>[]): boolean {
  const flat = flatten(row);
  return filters.every(([k, v]) => {
    const col = columns.find((c) => c.key === k);
    const value = col?.get ? col.get(row) : flat[k];
    return cellText(value).toLowerCase() === v.toLowerCase();
  });
}

/** --columns a,b (any of the command's columns), else all with --wide, else the default ones. */
export function selectColumns<T>(
  columns: Column<T>[],
  wanted: string | undefined,
  wide = false,
): Column<T>[] {
  if (!wanted) return wide ? columns : columns.filter((c) => !c.wide);
  const keys = wanted
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  const unknown = keys.filter((k) => !columns.some((c) => c.key === k));
  if (unknown.length > 0)
    throw new UnknownKeyError(
      'column',
      unknown,
      columns.map((c) => c.key),
    );
  return keys.map((k) => columns.find((c) => c.key === k)!);
}

function value<T>(row: T, c: Column<T>): unknown {
  return c.get ? c.get(row) : flatten(row)[c.key];
}

/** A cell cut to `width` columns of the screen, its end shown as an ellipsis. */
function cut(text: string, width: number): string {
  if (stringWidth(text) <= width) return text;
  let kept = '';
  let used = 0;
  for (const ch of text) {
    const w = stringWidth(ch);
    if (used + w > width - 1 && kept) break;
    kept += ch;
    used += w;
  }
  return `${kept}…`;
}

/**
 * The narrowest a column that is not an identifier may become (its natural width when that is less)
 * before the table turns into one block per record: 10 shows every status and kind whole (the longest,
 * "initiated", "cancelled", "processed", are 9) and 9 characters of anything longer, as much as "2026-11-2…"
 * or "processed…"; narrower, the cells become the unreadable "2026-1…" and "initia…" a table should not
 * show.
 */
export const minColumn = 10;

/**
 * A table of the rows. With `width` (a terminal's, or an exported COLUMNS), it fits: the identifier
 * columns keep their whole width, and the others are cut with an ellipsis, the widest first, down to
 * `minColumn`, until the table fits; when it cannot fit so, each row is shown as a block of
 * "Header  value" lines instead (renderVertical). Without `width` (a pipe, a file), nothing is cut.
 */
export async function renderTable<T>(rows: T[], columns: Column<T>[], width?: number): Promise<string> {
  const head = columns.map((c) => c.header ?? c.key);
  // a column with a shorter form is never cut either: it is shown whole, shortened, or left out
  const whole = columns.map((c) => c.identifier === true || c.short !== undefined);
  const wraps = columns.map((c) => c.wrap === true);
  const cells = rows.map((row) => columns.map((c) => clean(cellText(value(row, c)))));
  // blocks have the room for every value's whole form
  const blocks = cells.map((r) => [...r]);
  const natural = head.map((h) => stringWidth(h));
  const measure = (i: number) => {
    natural[i] = stringWidth(head[i]!);
    for (const r of cells) natural[i] = Math.max(natural[i]!, stringWidth(r[i]!));
  };
  columns.forEach((_, i) => measure(i));
  if (width === undefined || tableWidth(natural) <= width) return drawTable(head, cells);
  // Optional columns are left out, from the right, where that makes the table fit whole (a column with a
  // shorter form takes it first); else every column, cut down to fit; else, when only that lets it fit,
  // the table without them, cut; else blocks.
  let kept = columns.map((_, i) => i);
  const left: string[] = [];
  const shortened = new Set<number>();
  while (tableWidth(kept.map((i) => natural[i]!)) > width) {
    const next = kept.filter((i) => columns[i]!.optional || columns[i]!.short).at(-1);
    if (next === undefined) break;
    const short = columns[next]!.short;
    if (short && !shortened.has(next)) {
      shortened.add(next);
      rows.forEach((row, r) => (cells[r]![next] = clean(short(row))));
      measure(next);
      continue;
    }
    left.unshift(head[next]!);
    kept = kept.filter((i) => i !== next);
  }
  const pick = <X>(xs: X[]) => kept.map((i) => xs[i]!);
  const note = `\n${foldProse(`(left out to fit: ${left.join(', ')}; --columns or --wide shows ${left.length > 1 ? 'them' : 'it'})`, width)}`;
  if (left.length && tableWidth(pick(natural)) <= width)
    return `${drawTable(pick(head), cells.map(pick))}${note}`;
  const floors = (ks: number[]) => ks.map((i) => floorOf(i, whole, wraps, natural, cells));
  if (
    left.length &&
    tableWidth(floors(columns.map((_, i) => i))) > width &&
    tableWidth(floors(kept)) <= width
  )
    return `${fitTable(pick(head), cells.map(pick), pick(whole), pick(wraps), pick(natural), width)}${note}`;
  return fitTable(head, cells, whole, wraps, natural, width, blocks);
}

/**
 * The narrowest column `i` may become: an identifier (or a value never cut) its whole width; prose that
 * wraps its longest word, or `minColumn`; any other `minColumn` (its natural width when that is less).
 */
function floorOf(
  i: number,
  whole: boolean[],
  wraps: boolean[],
  natural: number[],
  cells: string[][],
): number {
  if (whole[i]) return natural[i]!;
  const least = Math.min(natural[i]!, minColumn);
  if (!wraps[i]) return least;
  return Math.max(least, ...cells.map((r) => longestWord(r[i]!)));
}

const longestWord = (text: string) => Math.max(0, ...text.split(/\s+/).map((w) => stringWidth(w)));

/** A table's width for these column widths: "│ " before each cell, " " after it, and one closing "│". */
const tableWidth = (ws: number[]) => ws.reduce((a, b) => a + b, 0) + 3 * ws.length + 1;

/**
 * A table wider than `width`: its other columns cut down to their floors (prose that wraps folded at its
 * spaces, never cut), or else one block per row.
 */
function fitTable(
  head: string[],
  cells: string[][],
  whole: boolean[],
  wraps: boolean[],
  natural: number[],
  width: number,
  blocks = cells,
): string {
  const floor = natural.map((_, i) => floorOf(i, whole, wraps, natural, cells));
  if (tableWidth(floor) > width) return renderVertical(head, blocks, whole, wraps, width);
  const widths = [...natural];
  while (tableWidth(widths) > width) {
    // the widest column that may still give a character (one is: the floor fits)
    let widest = -1;
    for (let i = 0; i < widths.length; i++)
      if (widths[i]! > floor[i]! && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
    widths[widest]! -= 1;
  }
  const fit = (c: string, i: number) =>
    whole[i] ? c : wraps[i] ? foldProse(c, widths[i]!, '') : cut(c, widths[i]!);
  return drawTable(
    head.map((h, i) => cut(h, widths[i]!)),
    cells.map((r) => r.map(fit)),
  );
}

/**
 * The box cli-table3 draws for a header and rows, drawn in one pass: cli-table3's own layout takes time
 * quadratic in the rows (16,000 rows: 20 s), which `history --all` would meet. Columns are as wide as their
 * widest cell on the screen (a wide character takes two columns); a cell of several lines (prose folded to
 * fit) makes its row as many lines high.
 */
function drawTable(head: string[], rows: string[][]): string {
  const ws = head.map((h) => stringWidth(h));
  const rowLines = rows.map((r) => r.map((c) => c.split('\n')));
  for (const r of rowLines)
    for (let i = 0; i < r.length; i++) for (const l of r[i]!) ws[i] = Math.max(ws[i]!, stringWidth(l));
  const rule = (l: string, m: string, r: string) => `${l}${ws.map((w) => '─'.repeat(w + 2)).join(m)}${r}`;
  const line = (cells: string[]) =>
    `│ ${cells.map((c, i) => c + ' '.repeat(ws[i]! - stringWidth(c))).join(' │ ')} │`;
  const out = [rule('┌', '┬', '┐'), line(head)];
  for (const r of rowLines) {
    const height = Math.max(1, ...r.map((c) => c.length));
    for (let k = 0; k < height; k++) out.push(line(r.map((c) => c[k] ?? '')));
  }
  out.push(rule('└', '┴', '┘'));
  return out.join('\n');
}

/**
 * One block per row: "Header  value" lines. An identifier's value comes whole: one that does not fit
 * beside its header goes on the next line by itself, indented two (as the IO folds prose), and when it is
 * longer than even that line it stays whole there (the terminal wraps it; cut, it could not be copied).
 * Prose that wraps is folded at its spaces under itself; any other value is cut to the width. A column
 * with no header and no value gives no line.
 */
function renderVertical(
  head: string[],
  cells: string[][],
  whole: boolean[],
  wraps: boolean[],
  width: number,
): string {
  const pad = Math.max(...head.map((h) => stringWidth(h))) + 2;
  const label = (h: string) => h + ' '.repeat(pad - stringWidth(h));
  const line = (h: string, c: string, i: number) => {
    if (wraps[i]) return foldProse(`${label(h)}${c}`, width, ' '.repeat(pad));
    if (!whole[i]) return `${label(h)}${cut(c, Math.max(minColumn, width - pad))}`;
    return pad + stringWidth(c) <= width ? `${label(h)}${c}` : `${h}\n  ${c}`;
  };
  return cells
    .map((r) => r.flatMap((c, i) => (head[i] || c ? [line(head[i]!, c, i)] : [])).join('\n'))
    .join('\n\n');
}

/**
 * A two-column key/value table for one object. With `width` (a terminal's), a table wider than it becomes
 * "key  value" lines, each value folded at spaces under itself (io/fold.ts), as a list table becomes
 * blocks; the value of a key in `commands` is a command line, folded only with ` \` so that it still
 * pastes.
 */
export async function renderRecord(
  obj: Record<string, unknown>,
  width?: number,
  commands: readonly string[] = [],
): Promise<string> {
  const rows = Object.entries(flatten(obj))
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => [k, clean(cellText(v))] as const);
  const keyWidth = Math.max(0, ...rows.map(([k]) => stringWidth(k)));
  const valueWidth = Math.max(0, ...rows.flatMap(([, v]) => v.split('\n').map((l) => stringWidth(l))));
  if (width !== undefined && keyWidth + valueWidth + 7 > width) {
    const pad = keyWidth + 2;
    const under = ' '.repeat(pad);
    return rows
      .map(([k, v]) =>
        v
          .split('\n')
          .map((l, i) => {
            const key = (i === 0 ? k : '').padEnd(pad);
            if (!commands.includes(k)) return foldProse(`${key}${l}`, width, under);
            const beside = foldCommand(l, width - pad).map((c, j) => `${j === 0 ? key : under}${c}`);
            if (beside.every((line) => stringWidth(line) <= width)) return beside.join('\n');
            // A word too long to sit beside the key (a hash token): the command starts under it, at the
            // left, so that each of its lines, and the ` \` that ends it, stays within the terminal.
            return [k, ...foldCommand(l, width - 2).map((c) => `  ${c}`)].join('\n');
          })
          .join('\n'),
      )
      .join('\n');
  }
  const Table = await loadTable();
  const table = new Table({ style: { head: [], border: [] } });
  for (const [k, v] of rows) table.push({ [k]: v });
  return table.toString();
}

const csvCell = (s: string) => {
  // A leading = + - @ makes spreadsheets run a formula, and so does one after a leading tab or carriage
  // return (which some read as blank): quote it as text.
  const t = /^[=+\-@\t\r]/.test(s) && !/^[-+]?\d+(\.\d+)?$/.test(s) ? `'${s}` : s;
  return /[",\n\r]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t;
};

export function renderCsv<T>(rows: T[], columns: Column<T>[]): string {
  return [csvHeader(columns), ...rows.map((row) => csvLine(row, columns))].join('\n');
}

/** The header line of a CSV file of these columns: for a file written a row at a time. */
export function csvHeader<T>(columns: Column<T>[]): string {
  return columns.map((c) => csvCell(c.key)).join(',');
}

/** One row as a CSV line, with the same quoting as renderCsv. */
export function csvLine<T>(row: T, columns: Column<T>[]): string {
  return columns.map((c) => csvCell(clean(cellText(value(row, c))))).join(',');
}
