// The file `mpay replay` and `mpay sandbox --catalogue` read: a HAR written by --trace, or a support bundle
// (.tar.gz, `mpay support bundle --trace-file`) holding one or more. A bundle is read as a stream, entry by
// entry, within bounds (api/input-bounds.ts); nothing of it is written to disk, and only its traces are
// parsed.
import { closeSync, createReadStream, openSync, readFileSync, readSync } from 'node:fs';
import { UsageError } from '../../common/errors.js';
import { checkFileSize, inputBounds, overBound, type InputBounds } from '../../api/input-bounds.js';
import { readHar, type ReadHar } from '../../api/har-read.js';
import { importLazily } from '../../lazy-import.js';

function isGzip(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(2);
    return readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

/**
 * The traces of a support bundle: its files named trace-N-… or ending in .har, as text. Read as a
 * stream, every entry's bytes counted as they are unpacked (the others' too): an entry over its bound, or
 * the whole over the bundle's, stops the read at once and is refused, in memory bounded by those bounds
 * whatever the bundle claims or unpacks to.
 */
async function bundleTraces(
  file: string,
  bounds: Pick<InputBounds, 'bundleBytes' | 'bundleEntryBytes'>,
): Promise<Array<{ name: string; text: string }>> {
  const tar = await importLazily<typeof import('tar')>('tar');
  return new Promise((resolve, reject) => {
    const found: Array<{ name: string; text: string }> = [];
    let total = 0;
    let done = false;
    const input = createReadStream(file);
    const fail = (err: unknown) => {
      if (done) return;
      done = true;
      input.destroy();
      found.length = 0;
      reject(
        err instanceof UsageError
          ? err
          : new UsageError(`Cannot read the bundle ${file}: ${(err as Error).message}`),
      );
    };
    const entryOver = (name: string) =>
      overBound(`the entry ${name} of the bundle ${file}`, bounds.bundleEntryBytes);
    const parser = tar.t({
      onReadEntry: (entry) => {
        const name = String(entry.path);
        const wanted = entry.type === 'File' && /(^|\/)trace-[^/]*$|\.har$/i.test(name);
        // what its header says, refused before a byte of it is unpacked
        if (entry.size > bounds.bundleEntryBytes) return fail(entryOver(name));
        const chunks: Buffer[] = [];
        let size = 0;
        entry.on('data', (c: Buffer) => {
          if (done) return;
          size += c.length;
          total += c.length;
          if (size > bounds.bundleEntryBytes) return fail(entryOver(name));
          if (total > bounds.bundleBytes)
            return fail(overBound(`the bundle ${file}, unpacked,`, bounds.bundleBytes));
          if (wanted) chunks.push(c);
        });
        entry.on('end', () => {
          if (!done && wanted) found.push({ name, text: Buffer.concat(chunks).toString('utf8') });
        });
      },
    });
    parser.on('error', fail);
    parser.on('end', () => {
      if (done) return;
      done = true;
      resolve(found);
    });
    input.on('error', fail);
    input.pipe(parser);
  });
}

/** The API's calls of FILE, every trace of a bundle in turn. */
export async function readTraceFile(
  file: string,
  bounds: InputBounds = inputBounds,
): Promise<ReadHar & { traces: string[] }> {
  try {
    if (!isGzip(file)) {
      checkFileSize(file, bounds.traceBytes, 'the trace');
      return { ...readHar(readFileSync(file, 'utf8'), file), traces: [file] };
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`Cannot read ${file}: ${(err as Error).message}`);
  }
  const traces = await bundleTraces(file, bounds);
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
