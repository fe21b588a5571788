// The spinner a flow shows on stderr while it waits on the network (a terminal only). Drawn here, on the
// IO's own stream, rather than by a library that takes over process.stdout while it spins.
import type { Writable } from 'node:stream';

const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** Shows `label` with a turning frame until `work` settles, then the label with done or failed. */
export async function spin<T>(stream: Writable, label: string, work: Promise<T>): Promise<T> {
  let i = 0;
  const draw = () => stream.write(`\r\u001b[2K${frames[i++ % frames.length]} ${label}`);
  draw();
  const timer = setInterval(draw, 80);
  const end = (word: string) => {
    clearInterval(timer);
    stream.write(`\r\u001b[2K${label}... ${word}\n`);
  };
  try {
    const r = await work;
    end('done');
    return r;
  } catch (err) {
    end('failed');
    throw err;
  }
}
