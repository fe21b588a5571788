// How a flow shows its progress: step titles and notes on stderr, a spinner while waiting on the network
// (on a terminal only, drawn by the IO object), and a wallet address as a QR code for crypto.
import type { Reporter } from '../flows/types.js';
import { importLazily } from '../lazy-import.js';
import type { IO } from '../io/io.js';
import { clean } from './output.js';

export class TerminalReporter implements Reporter {
  private readonly tty: boolean;

  constructor(private readonly io: IO) {
    this.tty = io.stderrIsTTY;
  }

  step(title: string): void {
    const line = this.io.fold(`→ ${clean(title)}`);
    this.io.stderr.write(`${this.tty ? `\u001b[1m${line}\u001b[22m` : line}\n`);
  }

  info(line: string): void {
    this.io.note(line);
  }

  wait<T>(label: string, work: Promise<T>): Promise<T> {
    return this.io.spin(`  ${label}`, work);
  }

  async address(address: string, asQr: boolean): Promise<void> {
    if (!asQr || !this.tty) return;
    const { default: qr } = await importLazily<{ default: typeof import('qrcode-terminal') }>(
      'qrcode-terminal',
    );
    const code = await new Promise<string>((resolve) => qr.generate(address, { small: true }, resolve));
    this.io.stderr.write(`${code}\n`);
  }
}
