// The global flags before the command (`mpay --profile a doctor`, `mpay --json countries`) mean what they
// mean after it. oclif reads the first words of argv as the command, so the global flags found before it
// are moved to just after the command's words: what the command then parses is what it would have had
// with them written there, a mistake included (a flag the command does not take is refused by its name).
import { globalFlags } from './base-command.js';

/** The global flags by every name they answer to (`--profile`, `-y`), and whether each takes a value. */
function globalNames(): Map<string, boolean> {
  const names = new Map<string, boolean>();
  for (const [name, flag] of Object.entries(globalFlags)) {
    const takesValue = flag.type === 'option';
    names.set(`--${name}`, takesValue);
    const char = (flag as { char?: string }).char;
    if (char) names.set(`-${char}`, takesValue);
  }
  return names;
}

/**
 * argv with the global flags written before the command moved to just after the command's words (`--profile
 * a doctor --json` becomes `doctor --profile a --json`). `ids` are the commands (`withdraw:batch:confirm`).
 * Anything else before the command (`--help`, `--version`, an unknown flag) ends the reading, and argv is
 * left as it was, as it is when the command comes first.
 */
export function commandFirst(argv: readonly string[], ids: Iterable<string>): string[] {
  const names = globalNames();
  const leading: string[] = [];
  let i = 0;
  while (i < argv.length) {
    const word = argv[i]!;
    const eq = word.indexOf('=');
    const name = word.startsWith('--') && eq > 0 ? word.slice(0, eq) : word;
    const takesValue = names.get(name);
    if (takesValue === undefined) break;
    if (takesValue && name === word) {
      if (i + 1 >= argv.length) return [...argv];
      leading.push(word, argv[i + 1]!);
      i += 2;
    } else {
      leading.push(word);
      i += 1;
    }
  }
  if (leading.length === 0 || i >= argv.length || argv[i]!.startsWith('-')) return [...argv];
  // The command is the longest run of words that names one; an unknown one is its first word, so that
  // oclif answers "unknown command" for it as it would with the flags after it.
  const known = new Set(ids);
  let words = 1;
  for (let n = 1; i + n <= argv.length; n += 1) {
    const candidate = argv.slice(i, i + n);
    if (candidate.some((w) => w.startsWith('-'))) break;
    if (known.has(candidate.join(':'))) words = n;
  }
  return [...argv.slice(i, i + words), ...leading, ...argv.slice(i + words)];
}
