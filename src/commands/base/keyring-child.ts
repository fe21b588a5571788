// The keyring's child process (config/keyring.ts): bin/run.js, or the single executable, started with
// MPAY_KEYRING_CHILD=1 runs this instead of a command. It reads one request from `input` (a service and
// its operations), does them with @napi-rs/keyring, and writes the answers to `output`: the entry hands it
// the process's stdin and stdout (only the entry files and src/io/ touch the process). The library may
// block for good on a bus that never answers: the parent kills this process at its deadline. No signal
// listener is installed here, so that Ctrl-C at a terminal ends this process too, blocked or not.
import type { Readable, Writable } from 'node:stream';
import { runKeyringRequest } from '../../config/keyring.js';

export async function keyringChild(input: Readable, output: Writable): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of input) chunks.push(c as Buffer);
  const answer = await runKeyringRequest(Buffer.concat(chunks).toString('utf8'));
  output.write(answer);
}
