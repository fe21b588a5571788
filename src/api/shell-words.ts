// Words for a POSIX shell, for every command line mpay prints for a person to run or paste (a resume
// hint, the next step): a word that the shell would read as it is stays bare, any other is single-quoted,
// so that `$()`, quotes, spaces and unicode reach mpay as they were given.

const bare = /^[A-Za-z0-9_./:@%+=,-]+$/;

/** One word, quoted when the shell would otherwise change it. */
export function shellQuote(word: string): string {
  return bare.test(word) ? word : singleQuoted(word);
}

/**
 * Single quotes, with each ' closed, escaped and reopened; a carriage return, which a terminal turns into
 * a line end when the line is pasted, is written $'\r' between them (bash's quoting, as curl lines are).
 */
export function singleQuoted(text: string): string {
  // (A function replacer: in a replacement string, $' would mean the text after the match.)
  return `'${text.replace(/'/g, `'\\''`).replace(/\r/g, () => `'$'\\r''`)}'`;
}

/** Words as one command line. */
export function commandLine(words: readonly string[]): string {
  return words.map(shellQuote).join(' ');
}
