// The journal's file as another process, a crash or another user finds it (journal/journal.ts): made
// private (0600, whatever the umask lets through), no secret in any record whatever a caller passes, and
// each line written and flushed to the disk before append() returns. Told through what append() leaves
// behind, so that it holds for any storage of the journal.
import fs, {
  fstatSync,
  linkSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { isMainThread } from 'node:worker_threads';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalFileError } from '../src/api/errors.js';
import { Journal } from '../src/journal/journal.js';
import { tempDir } from './helpers.js';

const event = (reference: string, data?: Record<string, unknown>) => ({
  reference,
  kind: 'withdraw' as const,
  step: 'processed' as const,
  outcome: 'ok' as const,
  data,
});

/** Every line of every file under the journal folder: what a reader of the disk finds. */
function onDisk(j: Journal): string {
  return readFileSync(j.file, 'utf8');
}

describe('the journal file', () => {
  it('is made 0600 and its folder 0700, even under a umask that lets others read (022, 002, 000)', () => {
    // (A worker thread, as Stryker's runner uses, cannot set the umask: there, the one it has.)
    for (const mask of isMainThread ? [0o022, 0o002, 0o000] : [process.umask()]) {
      const before = isMainThread ? process.umask(mask) : mask;
      try {
        const j = new Journal(tempDir(), 'default', 'sandbox');
        j.append(event('mode-1'));
        expect((statSync(j.file).mode & 0o777).toString(8), `umask ${mask.toString(8)}`).toBe('600');
        expect((statSync(j.dir).mode & 0o777).toString(8), `umask ${mask.toString(8)}`).toBe('700');
      } finally {
        if (isMainThread) process.umask(before);
      }
    }
  });

  it('never holds a secret a caller passes in a record’s data, under any case of its name', () => {
    const j = new Journal(tempDir(), 'default', 'sandbox');
    const secrets = {
      otp: '918273',
      OTP: '564738',
      api_key: 'ak-secret-value-1',
      Merchant_Key: 'mk-secret-value-2',
      token: 'tok-secret-value-3',
      Authorization: 'Bearer auth-secret-4',
    };
    const kept = j.append(event('secret-1', { ...secrets, amount: '25.00', gateway: 7, note: undefined }));
    const text = onDisk(j);
    for (const [name, value] of Object.entries(secrets)) {
      expect(text, name).not.toContain(value);
      expect(text, name).not.toContain(`"${name}"`);
    }
    // what is not a secret is kept, and what append() answers is what it wrote
    const line = JSON.parse(text.trim());
    expect(line.data).toEqual({ amount: '25.00', gateway: 7 });
    expect(kept.data).toEqual(line.data);
    expect(j.find('secret-1')?.amount).toBe('25.00');
    // a name that only contains a forbidden word is no secret's name
    j.append(event('secret-2', { otp_sent: true, token_type: 'Bearer' }));
    expect(JSON.parse(onDisk(j).trim().split('\n')[1]!).data).toEqual({
      otp_sent: true,
      token_type: 'Bearer',
    });
  });

  it('flushes each line to the disk (fsync of the journal file, the line already in it) before append() returns', () => {
    // A record that a crash of the machine (not only of mpay) may lose is no record: the gate sends a money
    // request only after its line is durable. What reaches the disk cannot be watched from here, so the
    // test watches the call that makes it so: an fsync of the journal file's own descriptor, made after
    // the line was written and before append() returned.
    const j = new Journal(tempDir(), 'default', 'sandbox');
    j.append(event('sync-0'));
    const synced: { ino: number; text: string }[] = [];
    const real = fs.fsyncSync;
    fs.fsyncSync = (fd: number) => {
      real(fd);
      const st = fstatSync(fd);
      synced.push({ ino: st.ino, text: st.isFile() ? readFileSync(j.file, 'utf8') : '' });
    };
    syncBuiltinESMExports();
    let returned: string | undefined;
    try {
      j.append(event('sync-1'));
      returned = readFileSync(j.file, 'utf8');
    } finally {
      fs.fsyncSync = real;
      syncBuiltinESMExports();
    }
    const ino = statSync(j.file).ino;
    const ofJournal = synced.filter((s) => s.ino === ino);
    expect(ofJournal.length, 'fsync calls on the journal file').toBeGreaterThan(0);
    expect(ofJournal.at(-1)!.text).toContain('"sync-1"');
    expect(ofJournal.at(-1)!.text).toBe(returned);
  });
});

describe('the journal folder', () => {
  it('is refused before anything is written when its group or others can write it (0770, 0775, 0720, 0730, 0707, 0777)', () => {
    for (const mode of [0o770, 0o775, 0o720, 0o730, 0o707, 0o777]) {
      const cfg = tempDir();
      const j = new Journal(cfg, 'default', 'sandbox');
      j.append(event('group-0'));
      fs.chmodSync(j.dir, mode);
      const before = onDisk(j);
      const err = (() => {
        try {
          j.append(event('group-1'));
        } catch (e) {
          return e as LocalFileError;
        }
      })();
      expect(err, mode.toString(8)).toBeInstanceOf(LocalFileError);
      expect(err!.message).toMatch(
        new RegExp(
          `^The journal folder ${j.dir} is writable by (its group|other users) \\(mode ${mode.toString(8)}\\)`,
        ),
      );
      // the rule's own refusal, not a write error wrapped around it
      expect(err!.hint).toBe(`Check what is in it, then: chmod 700 '${j.dir}'`);
      expect(onDisk(j), mode.toString(8)).toBe(before);
      expect(() => new Journal(cfg, 'default', 'sandbox'), mode.toString(8)).toThrow(/is writable by/);
    }
  });

  it('a folder others can only read (0750, 0755, 0711) is set back to 0700, with a warning', () => {
    for (const mode of [0o750, 0o755, 0o711]) {
      const cfg = tempDir();
      new Journal(cfg, 'default', 'sandbox').append(event('read-0'));
      const dir = join(cfg, 'journal');
      fs.chmodSync(dir, mode);
      const warnings: string[] = [];
      new Journal(cfg, 'default', 'sandbox', { warn: (w) => void warnings.push(w) });
      expect(warnings.join('\n'), mode.toString(8)).toContain(
        `${dir} was mode ${mode.toString(8)}; set it to 700`,
      );
      expect((statSync(dir).mode & 0o777).toString(8)).toBe('700');
    }
  });
});

describe('an append', () => {
  it('carries the journal’s place on every line, and closes the file it opened', () => {
    const place = { server: 'http://127.0.0.1:1', merchant: 'm-1', profile: 'default', env: 'sandbox' };
    const j = new Journal(tempDir(), 'default', 'sandbox', { place });
    j.append(event('place-0'));
    const fds = readdirSync('/proc/self/fd').length;
    for (let i = 1; i <= 20; i++) j.append(event(`place-${i}`));
    expect(readdirSync('/proc/self/fd').length).toBe(fds);
    const lines = onDisk(j)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(21);
    for (const l of lines) expect(l.place).toEqual(place);
  });

  it('starts on a fresh line after a line a crash cut, and never writes through a link or a second name', () => {
    const j = new Journal(tempDir(), 'default', 'sandbox');
    j.append(event('torn-0'));
    fs.appendFileSync(j.file, '{"reference":"torn-1","ki');
    j.append(event('torn-2'));
    expect(
      onDisk(j)
        .split('\n')
        .filter((l) => l.includes('torn-2')),
    ).toEqual([expect.stringMatching(/^\{.*\}$/)]);
    // a link where the file was: refused, the file it points to untouched
    const victim = join(tempDir(), 'victim');
    writeFileSync(victim, 'keep');
    rmSync(j.file);
    symlinkSync(victim, j.file);
    expect(() => j.append(event('link-1'))).toThrow(
      `The journal file ${j.file} is a link; mpay will not read or write through it`,
    );
    expect(readFileSync(victim, 'utf8')).toBe('keep');
    // a second name (a hard link) made after the journal was opened: refused, nothing written
    const k = new Journal(tempDir(), 'default', 'sandbox');
    k.append(event('names-0'));
    linkSync(k.file, join(tempDir(), 'other-name'));
    const before = onDisk(k);
    expect(() => k.append(event('names-1'))).toThrow(
      `The journal file ${k.file} has 2 names (hard links); mpay will not read or write it`,
    );
    expect(onDisk(k)).toBe(before);
  });
});
