// Words for a POSIX shell, for every command line mpay prints for a person to run or paste (a resume
// hint, the next step): a word that the shell would read as it is stays bare, any other is single-quoted,
// so that `$()`, quotes, spaces and unicode reach mpay as they were given.

const bare = /^[A-Za-z0-9_./:@%+=,-]+$/;

/** One word, quoted when the shell would otherwise change it. */
export function shellQuote(word: string): string {
  return bare.test(word) ? word : singleQuoted(word);
}

// What a terminal would act on rather than show: C0 controls but tab and line feed, DEL, C1 controls, and
// the bidi and format characters that reorder a line (the set io/clean.ts makes visible for a person; the
// shell-words test checks the two agree). A word that holds one is printed so that the terminal shows it
// and the shell still reads it byte for byte.
// eslint-disable-next-line no-control-regex
const unshowable = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]+/g;

/** $'…' of the text's UTF-8 bytes (\\r for a carriage return), which bash, zsh and ksh read as those bytes. */
const ansiC = (text: string) =>
  `$'${[...Buffer.from(text, 'utf8')].map((b) => (b === 0x0d ? '\\r' : `\\x${b.toString(16).padStart(2, '0')}`)).join('')}'`;

/**
 * Single quotes, with each ' closed, escaped and reopened; a character a terminal would act on (a carriage
 * return, which turns into a line end when the line is pasted, an escape, a bidi override) is written
 * between them as $'\\xHH' of its bytes (bash's quoting), so the line shows it and sends it as it was.
 */
export function singleQuoted(text: string): string {
  // (A function replacer: in a replacement string, $' would mean the text after the match.)
  return `'${text.replace(/'/g, `'\\''`).replace(unshowable, (m) => `'${ansiC(m)}'`)}'`;
}

/** Words as one command line. */
export function commandLine(words: readonly string[]): string {
  return words.map(shellQuote).join(' ');
}

/**
 * A value from a server or a user in prose (a hint's hash token, a reference): bare when the shell would
 * read it as it is, else single-quoted as singleQuoted() does, with line breaks and tabs written as
 * $'\\xHH' too, so that the value stays on its line, its control bytes show, and `$(…)` or a backtick in
 * it is inert when the line is pasted.
 */
export function shownValue(text: string): string {
  if (bare.test(text)) return text;
  return singleQuoted(text).replace(/[\n\t]+/g, (m) => `'${ansiC(m)}'`);
}
