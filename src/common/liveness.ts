// Whether a process is still there, by its id and, where /proc has it, its start time: the one check
// behind the journal's locks (locks.ts: a holder gone is taken over at once) and the batch spool's
// leftovers (commands/shared/stdin-spool.ts: a file whose process is gone is removed).

import { readFileSync } from 'node:fs';

/** A file's text, trimmed; undefined where it cannot be read. */
export const readText = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
};

/** A process's start time (field 22 of /proc/PID/stat, in clock ticks since boot), where /proc has it. */
export function startOf(pid: number | 'self'): string | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  // The command name (field 2) may hold spaces and parentheses: the fields after its last ')' count from 3.
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

/**
 * Whether the process of this id, on this machine, is known for sure to be gone: no process has the id
 * (or Node refuses it as no process id at all), or, given the start time it had, the id now belongs to a
 * process that started at another time (the id reused). One of another user's (EPERM) is there; so is an
 * alive one whose start time is not known.
 */
export function processGone(pid: number, start?: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'EPERM';
  }
  const now = start === undefined ? undefined : startOf(pid);
  return Boolean(start && now && now !== start);
}
