// Words for a POSIX shell (common/shell-words.ts), in this process, each printed word run literally by bash (the $'\xHH' of a control character is bash's, zsh's and ksh's): a
// word the shell would read as it is stays bare; any other (a $, a quote, a space, a glob, a tilde) is
// quoted so that the shell gives back the very bytes.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { commandLine, shellQuote, shownValue, singleQuoted } from '../src/common/shell-words.js';

/** What bash passes to a command for the printed words: one NUL-ended argument each. */
function shellReads(line: string): string[] {
  const out = execFileSync('bash', ['-c', `printf '%s\\0' ${line}`], {
    env: { PATH: process.env.PATH, HOME: '/home/nobody-here' },
  });
  return out.toString('utf8').split('\0').slice(0, -1);
}

const hostile = [
  '$',
  '$HOME',
  'a$b',
  '${x}',
  '$(id)',
  '`id`',
  "it's",
  'a b',
  '*',
  '?',
  '[a]',
  '~',
  '~/x',
  'a;b',
  'a|b',
  'a&b',
  '!x',
  '#x',
  'x#',
  'a\\b',
  '"',
  '',
  '\n',
  'é',
  'a\rb',
  '\u202ex',
];

describe('shellQuote', () => {
  it('quotes every word the shell would change, a bare $ first of all; bash reads back each one exactly', () => {
    for (const w of hostile) expect(shellQuote(w), JSON.stringify(w)).not.toBe(w === '' ? '' : w);
    expect(shellQuote('$')).toBe("'$'");
    expect(shellReads(hostile.map(shellQuote).join(' '))).toEqual(hostile);
  });

  it('leaves a plain word bare, and bash reads it as it is', () => {
    const plain = ['deposit', 'r-1', 'a.b/c:d@e%f+g=h,i_j', '25.00', 'https://x.test/a?b', 'GHS'];
    for (const w of plain) expect(shellQuote(w), w).toBe(w.includes('?') ? singleQuoted(w) : w);
    expect(shellReads(plain.map(shellQuote).join(' '))).toEqual(plain);
  });
});

describe('singleQuoted and shownValue', () => {
  it("write a run of control bytes as one $'\\xHH' of them, a carriage return as \\r, a quote closed and reopened", () => {
    expect(singleQuoted('a\x01\x02b')).toBe("'a'$'\\x01\\x02''b'");
    expect(singleQuoted('a\rb')).toBe("'a'$'\\r''b'");
    expect(singleQuoted("it's\x1b[31m")).toBe("'it'\\''s'$'\\x1b''[31m'");
    // a line break and a tab stay inside the quotes for a command line, which is pasted whole
    expect(singleQuoted('a\n\tb')).toBe("'a\n\tb'");
    expect(singleQuoted('plain-ref')).toBe("'plain-ref'");
  });

  it("shownValue keeps a plain value bare and writes a line break or a tab as $'\\xHH', so the value stays on its line", () => {
    expect(shownValue('plain-ref')).toBe('plain-ref');
    expect(shownValue('a b')).toBe("'a b'");
    expect(shownValue('a\n\tb')).toBe("'a'$'\\x0a\\x09''b'");
    expect(shownValue('a\nb\tc')).toBe("'a'$'\\x0a''b'$'\\x09''c'");
    const values = ['a\n\tb', '$(id)', 'x\r'];
    expect(shellReads(values.map(shownValue).join(' '))).toEqual(values);
  });

  it('commandLine joins the quoted words with a space', () => {
    expect(commandLine(['mpay', 'status', 'a b', '$x'])).toBe("mpay status 'a b' '$x'");
  });
});
