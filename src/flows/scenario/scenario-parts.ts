// Where a large scenario file can be cut into parts that read as the whole does (scenario-file.ts reads
// a file of 1 MB or more a part at a time: the `yaml` package's document of a whole 100,000-step file took
// 1.5 GB). Text only: what each part says is the reader's to find.
/** A large file cut where its steps start: its head (up to `steps:`), and its steps, some at a time. */
export interface StepParts {
  head: string;
  /** each part's text and the lines of the file before it */
  parts: { text: string; lineBase: number }[];
}

/** how many steps a part holds: its document a few megabytes at most */
const stepsAPart = 200;

/**
 * The places a large file can be cut without changing what it says: a top-level `steps:` that is the
 * file's last key, each of its items starting a line at the list's indentation with `- `. Anything else
 * (a key after the steps, a flow list, a directive, document markers) leaves the file read whole.
 */
export function stepParts(text: string): StepParts | undefined {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => /^steps:[ \t]*(#.*)?\r?$/.test(l));
  if (at < 0 || lines.slice(0, at).some((l) => l.startsWith('%'))) return undefined;
  const parts: StepParts['parts'] = [];
  let indent: number | undefined;
  let from = at + 1;
  let items = 0;
  for (let i = at + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^[ \t]*(#.*)?\r?$/.test(line)) continue;
    const lead = /^ */.exec(line)![0].length;
    const item = /^-( |\r?$)/.test(line.slice(lead));
    indent ??= item ? lead : -1;
    if (lead < indent || (lead === indent && !item) || indent < 0) return undefined;
    if (lead !== indent) continue;
    if (items > 0 && items % stepsAPart === 0) {
      parts.push({ text: `${lines.slice(from, i).join('\n')}\n`, lineBase: from });
      from = i;
    }
    items++;
  }
  if (indent === undefined) return undefined;
  parts.push({ text: lines.slice(from).join('\n'), lineBase: from });
  return { head: `${lines.slice(0, at + 1).join('\n')}\n`, parts };
}
