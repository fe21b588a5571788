// The spinner a flow shows on stderr while it waits on the network (a terminal only). Drawn here, on the
// IO's own stream: while it turns, whatever else is written to that stream (a --debug line, a note) clears
// the spinner's line first and the spinner is drawn again below it, so neither garbles the other.
import type { Writable } from 'node:stream';

const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const clearLine = '\r\u001b[2K';

/**
 * Shows `label` with a turning frame until `work` settles, then the label with done or failed. An
 * interruption (`beforeNotes`, the IO's interrupts) ends the spinner's line first, so that what is said of
 * it is never drawn over, nor left behind a frame: the work goes on, and its end is said on a line after.
 */
export async function spin<T>(
  stream: Writable,
  label: string,
  work: Promise<T>,
  beforeNotes: (end: () => void) => () => void = () => () => {},
): Promise<T> {
  const own = Object.prototype.hasOwnProperty.call(stream, 'write');
  const original = stream.write;
  const write = original.bind(stream) as (chunk: string) => boolean;
  let i = 0;
  let line = '';
  const draw = () => {
    line = `${frames[i++ % frames.length]} ${label}`;
    write(`${clearLine}${line}`);
  };
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    write(clearLine);
    const r = (original as (...a: unknown[]) => boolean).call(stream, chunk, ...rest);
    write(line);
    return r;
  }) as typeof stream.write;
  draw();
  const timer = setInterval(draw, 80);
  let turning = true;
  const stop = (word: string) => {
    if (!turning) return false;
    turning = false;
    clearInterval(timer);
    if (own) stream.write = original;
    else delete (stream as { write?: unknown }).write;
    write(`${clearLine}${label}... ${word}\n`);
    return true;
  };
  const unregister = beforeNotes(() => stop('waiting for its answer (interrupted)'));
  const end = (word: string) => {
    unregister();
    // after an interruption the line was ended: the outcome gets one of its own
    if (!stop(word)) write(`${label}... ${word}\n`);
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
