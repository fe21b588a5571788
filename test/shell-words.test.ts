// Words for a POSIX shell (api/shell-words.ts), in this process, each printed word run literally by bash (the $'\xHH' of a control character is bash's, zsh's and ksh's): a
// word the shell would read as it is stays bare; any other (a $, a quote, a space, a glob, a tilde) is
// quoted so that the shell gives back the very bytes.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellQuote, singleQuoted } from '../src/api/shell-words.js';

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
