// The keyring's child process (config/keyring.ts): bin/run.js, or the single executable, started with
// MPAY_KEYRING_CHILD=1 runs this instead of a command. It reads one request on stdin (a service and its
// operations), does them with @napi-rs/keyring, and writes the answers on stdout. The library may block
// for good on a bus that never answers: the parent kills this process at its deadline.
import { runKeyringRequest } from '../../config/keyring.js';

export async function keyringChild(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  const answer = await runKeyringRequest(Buffer.concat(chunks).toString('utf8'));
  process.stdout.write(answer);
}
