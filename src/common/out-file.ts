// Files mpay writes outside its own folder (--out, --trace, the support bundle) may sit in a shared folder
// such as /tmp, where another user can plant a link: one is never written through. An output whose path is
// a link is refused; an existing file is replaced by a new one made exclusively, 0600 whatever the umask.
// A write that fails once requests have left is told to the run's Outputs (exit 15), never thrown.
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  closeSync,
  constants,
  lstatSync,
  openSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from './errors.js';

/**
 * Refuses a path whose folder is missing or not writable: checked as the flags are read (--out, --trace),
 * before anything is sent, and not found at the first write after a request. The folder is written to
 * (a file made exclusively and removed): access(2) alone says yes to root where no file can be made
 * (`/sys`, a read-only mount), and the writes that follow make a file beside the output first.
 */
export function checkOutputFolder(path: string, what: string): void {
  const folder = dirname(resolve(path));
  try {
    accessSync(folder, constants.W_OK);
    const probe = join(folder, `.mpay-write-check-${process.pid}-${randomBytes(4).toString('hex')}`);
    closeSync(openSync(probe, 'wx', 0o600));
    unlinkSync(probe);
  } catch {
    const st = statSync(folder, { throwIfNoEntry: false });
    throw new UsageError(
      !st
        ? `Cannot write ${what} to ${path}: there is no folder ${folder}`
        : !st.isDirectory()
          ? `Cannot write ${what} to ${path}: ${folder} is not a folder`
          : `Cannot write ${what} to ${path}: the folder ${folder} is not writable by this user`,
      { hint: 'Give a path in a folder that exists and that you can write to' },
    );
  }
}

/**
 * Refuses what checkOutputFolder refuses and a link at `path`, and removes a file there, so that an
 * exclusive create ('wx') can follow.
 */
export function clearForOutput(path: string, what: string): void {
  checkOutputFolder(path, what);
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st) return;
  if (st.isSymbolicLink())
    throw new UsageError(`Refusing to write ${what} through the link ${path}`, {
      hint: 'Give another path, or remove the link',
    });
  if (st.isDirectory()) throw new UsageError(`${path} is a folder: give a file for ${what}`);
  unlinkSync(path);
}

/** An output that could not be written once the run had begun: what it was, where, why, and how far. */
export interface OutputFailure {
  /** "the trace", "the results", "the junit report", "the scenario" */
  what: string;
  path: string;
  /** the error's code (EFBIG, ENOSPC, ENOENT) or its message */
  why: string;
  /**
   * what the run sent, asked when the failure is told (as the command ends): "after 3 requests"; nothing
   * when nothing was
   */
  after?: () => string | undefined;
}

export const whyFailed = (err: unknown): string =>
  (err as NodeJS.ErrnoException)?.code ?? (err as Error)?.message ?? String(err);

/**
 * The run's outputs' failures (one a run, shared by the steps of `mpay run`): every file a command writes
 * after its first request (--trace, --out, a report, --save-scenario) tells its failure here instead of
 * throwing, so that the run goes on, its results reach stdout, and the command ends with exit 15
 * (output_failed), never 2 (ui/output-failures.ts says it, once, as the command ends).
 */
export class Outputs {
  private readonly failures: OutputFailure[] = [];
  private told = 0;

  failed(f: OutputFailure): void {
    this.failures.push(f);
  }

  get any(): boolean {
    return this.failures.length > 0;
  }

  /** The failures not handed out yet: each is told once. */
  untold(): OutputFailure[] {
    const now = this.failures.slice(this.told);
    this.told = this.failures.length;
    return now;
  }
}

/**
 * A file an output is written to: checked (a link, a folder it cannot write to: UsageError, exit 2) and
 * created (exclusively, 0600) when it is opened, before the first request. Its writes never throw: the
 * first one that fails is told to the run's Outputs, and the writes after it are dropped (`failed` says
 * why), so that what the caller does next (print to stdout instead) is its own choice.
 */
export class OutputFile {
  failed?: string;
  private fd?: number;

  private constructor(
    readonly path: string,
    readonly what: string,
    private readonly outputs: Outputs | undefined,
    private readonly sent: (() => string | undefined) | undefined,
    fd: number,
  ) {
    this.fd = fd;
  }

  /**
   * Checks and creates `path`, and writes `first` (a CSV header) to it: a UsageError, nothing sent, when it
   * may not be written. `sent` says, when a later write's failure is told, what the run sent ("after 3 rows").
   */
  static open(
    path: string,
    what: string,
    run: { outputs?: Outputs; sent?: () => string | undefined; first?: string } = {},
  ): OutputFile {
    clearForOutput(path, what);
    const file = new OutputFile(path, what, undefined, undefined, openSync(path, 'wx', 0o600));
    if (run.first !== undefined && !file.write(run.first)) {
      file.close();
      throw new UsageError(`Cannot write ${what} to ${path} (${file.failed}): nothing was sent`);
    }
    return new OutputFile(path, what, run.outputs, run.sent, file.take());
  }

  /** The descriptor, handed on to another OutputFile. */
  private take(): number {
    const fd = this.fd!;
    this.fd = undefined;
    return fd;
  }

  /** Writes all of `text`; false when it (or an earlier write) failed. */
  write(text: string | Buffer): boolean {
    if (this.failed || this.fd === undefined) return false;
    try {
      const b = typeof text === 'string' ? Buffer.from(text) : text;
      let done = 0;
      while (done < b.length) done += writeSync(this.fd, b, done, b.length - done);
      return true;
    } catch (err) {
      this.fail(err);
      return false;
    }
  }

  /** Tells the run's Outputs that this file failed (a write of the caller's own, say), once. */
  fail(err: unknown): void {
    if (this.failed) return;
    this.failed = whyFailed(err);
    this.outputs?.failed({ what: this.what, path: this.path, why: this.failed, after: this.sent });
  }

  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      closeSync(fd);
    } catch (err) {
      this.fail(err);
    }
  }
}
