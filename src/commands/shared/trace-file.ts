// The file `mpay replay` and `mpay sandbox --catalogue` read: a HAR written by --trace, or a support bundle
// (.tar.gz, `mpay support bundle --trace-file`) holding one or more. A bundle is read in memory, entry by
// entry; nothing of it is written to disk, and only its traces are parsed.
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { UsageError } from '../../api/errors.js';
import { readHar, type ReadHar } from '../../api/har-read.js';
import { importLazily } from '../../lazy-import.js';

/** The largest trace read from a bundle: a HAR of a support ticket is kilobytes, not gigabytes. */
const maxTraceBytes = 64 * 2 ** 20;

function isGzip(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(2);
    return readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

/** The traces of a support bundle: its files named trace-N-… or ending in .har, as text. */
async function bundleTraces(file: string): Promise<Array<{ name: string; text: string }>> {
  const tar = await importLazily<typeof import('tar')>('tar');
  const found: Array<{ name: string; text: string }> = [];
  await tar.t({
    file,
    onReadEntry: (entry) => {
      const name = String(entry.path);
      if (entry.type !== 'File' || !/(^|\/)trace-[^/]*$|\.har$/i.test(name)) {
        entry.resume();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      entry.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= maxTraceBytes) chunks.push(c);
      });
      entry.on('end', () => {
        if (size <= maxTraceBytes) found.push({ name, text: Buffer.concat(chunks).toString('utf8') });
      });
    },
  });
  return found;
}

/** The API's calls of FILE, every trace of a bundle in turn. */
export async function readTraceFile(file: string): Promise<ReadHar & { traces: string[] }> {
  try {
    if (!isGzip(file)) return { ...readHar(readFileSync(file, 'utf8'), file), traces: [file] };
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`Cannot read ${file}: ${(err as Error).message}`);
  }
  let traces: Array<{ name: string; text: string }>;
  try {
    traces = await bundleTraces(file);
  } catch (err) {
    throw new UsageError(`Cannot read the bundle ${file}: ${(err as Error).message}`);
  }
  if (!traces.length)
    throw new UsageError(`The bundle ${file} holds no trace`, {
      hint: 'Make the bundle with --trace-file run.har (a trace written with --trace)',
    });
  const out: ReadHar & { traces: string[] } = { calls: [], ignored: 0, traces: [] };
  for (const t of traces) {
    const read = readHar(t.text, `${file}:${t.name}`);
    out.calls.push(...read.calls);
    out.ignored += read.ignored;
    out.traces.push(`${file}:${t.name}`);
  }
  return out;
}
