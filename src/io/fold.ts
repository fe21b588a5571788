// How text for a person fits a terminal's width: prose folds at spaces (wrap-ansi), and a command line a
// person pastes folds only with shell continuations (` \`) between its words, never inside quotes, so that
// it still runs as printed. The IO object folds its notes, warnings and prose with these (io.ts), and the
// key/value tables fold their values with them (ui/output.ts). A word longer than a line (a hash token)
// is left whole: cut, it could not be copied. On a terminal a code span loses its backticks (unquoted).
import stringWidth from 'string-width';
import wrapAnsi from 'wrap-ansi';

/** A command line for a person to paste, after a label of prose ("Try: ", "Resume with: "). */
export interface CommandLine {
  label: string;
  command: string;
}

/** What the IO prints for a person: prose, or a labelled command line. */
export type Text = string | CommandLine;

/** Stands for a space inside a `code span` while the prose around it is folded. */
const keep = '\uE000';

/**
 * The words of a command line: split at the spaces outside quotes ('…', "…", and a \ escape), so that a
 * quoted argument stays whole.
 */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === '\\' && quote !== "'" && i + 1 < line.length) {
      word += ch + line[++i];
    } else if (quote) {
      if (ch === quote) quote = undefined;
      word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      word += ch;
    } else if (ch === ' ') {
      if (word) words.push(word);
      word = '';
    } else word += ch;
  }
  if (word) words.push(word);
  return words;
}

/** Words to fold between: a flag and its value (`--env sandbox`) stay together where they fit. */
function flagsWithValues(words: string[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const next = words[i + 1];
    if (/^-/.test(w) && !w.includes('=') && next !== undefined && !/^(-|[|&;])/.test(next)) {
      out.push([w, next]);
      i++;
    } else out.push([w]);
  }
  return out;
}

/**
 * A command line folded to `width` with shell continuations (` \`) between words, never inside quotes, its
 * lines after the first indented by `indent`: it still pastes as one command. A word longer than a line
 * stays whole.
 */
export function foldCommand(line: string, width: number, indent = '    '): string[] {
  if (stringWidth(line) <= width) return [line];
  const lead = /^ */.exec(line)![0];
  const out: string[] = [];
  let current = '';
  const add = (w: string) => {
    if (current && stringWidth(current) + 1 + stringWidth(w) + 2 > width) {
      out.push(`${current} \\`);
      current = `${indent}${w}`;
    } else current = current ? `${current} ${w}` : `${lead}${w}`;
  };
  for (const unit of flagsWithValues(shellWords(line))) {
    const together = unit.join(' ');
    // a flag and its value too wide for a line of their own fold between them too
    if (unit.length > 1 && stringWidth(indent + together) + 2 > width) unit.forEach(add);
    else add(together);
  }
  if (current) out.push(current);
  return out;
}

/**
 * One line of prose folded at spaces to `width`: its lines after the first indented by `indent` (two more
 * than the line's own). A `code span` (a command) never breaks at a space: it moves to the next line whole,
 * or, longer than a line, continues with ` \` as a command line does.
 */
function foldLine(line: string, width: number, indent?: string): string {
  // A line that fits, or a command's line already folded (it ends in ` \`, and a word on it is longer
  // than any line: a break before the ` \` would end the command there).
  if (stringWidth(line) <= width || / \\$/.test(line)) return line;
  const lead = /^ */.exec(line)![0];
  const hang = indent ?? `${lead}  `;
  const body = line.slice(lead.length).replace(/`[^`]*`/g, (span) => span.replace(/ /g, keep));
  const wrap = (text: string, room: number) =>
    wrapAnsi(text, Math.max(room, 8), { hard: false, trim: true }).split('\n');
  // The first line has the room of its own indentation, the others of theirs.
  const first = wrap(body, width - lead.length)[0]!;
  const rest = body.slice(first.length).trimStart();
  const rows = !body.startsWith(first)
    ? wrap(body, width - hang.length)
    : rest
      ? [first, ...wrap(rest, width - hang.length)]
      : [first];
  return rows
    .flatMap((row, i) => {
      const text = row.replace(new RegExp(keep, 'g'), ' ');
      const at = i === 0 ? lead : hang;
      // A command too long for a line of its own continues as a command line does.
      if (stringWidth(at + text) > width && text.includes('`') && text.includes(' '))
        return foldCommand(text, width - at.length).map((l, j) => (j === 0 ? at + l : hang + l));
      return [at + text];
    })
    .join('\n');
}

/**
 * Prose folded at spaces to `width`, line by line (a line that fits is left as it is); each line's
 * continuation is indented two more than it, or by `indent`.
 */
export function foldProse(text: string, width: number, indent?: string): string {
  return text
    .split('\n')
    .map((line) => foldLine(line, width, indent))
    .join('\n');
}

/** The text as one string: a command line after its label, folded with ` \` when `width` is given. */
export function foldText(text: Text, width: number | undefined): string {
  if (typeof text !== 'string')
    return width === undefined
      ? `${text.label}${text.command}`
      : foldCommand(`${text.label}${text.command}`, width).join('\n');
  return width === undefined ? text : unquoted(foldProse(text, width));
}

/**
 * On a terminal a `code span` is shown without its backticks, once folding has used them: a person who
 * selects the whole line and pastes it would have bash run the command inside them, then run what it
 * printed. Without them, a whole line pasted fails at its first word ("hint:"), and the command alone
 * pastes as it is.
 */
function unquoted(text: string): string {
  return text.replace(/`([^`]*)`/g, '$1');
}
