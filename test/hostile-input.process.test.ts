// Hostile input, from the user and from the server. Property tests (fast-check) over the checks of every
// flag and prompt value and over the response parsers; then the commands (in-process) against the
// sandbox, with a sample of hostile values (no request may leave) and a server that sends terminal escape
// sequences.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { singleQuoted } from '../src/common/shell-words.js';
import { without } from './tools.js';

describe('a shell word on a terminal', () => {
  it.skipIf(without('bash'))('bash reads a single-quoted word back byte for byte', async () => {
    const words = ['Ev\u202eil', 'a\u001b]0;t\u0007b', 'x\u009b31m\r\ny', "q'$(id)`id`${HOME}!!\u2066"];
    const { stdout } = await promisify(execFile)('bash', [
      '-c',
      words.map((w) => `printf '%s\\0' ${singleQuoted(w)}`).join('; '),
    ]);
    expect(stdout.split('\0').slice(0, -1)).toEqual(words);
  });
});
