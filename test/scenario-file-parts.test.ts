// A large scenario file is read a part at a time (flows/scenario/scenario-file.ts readInParts): the `yaml`
// package's document of a whole file of 100,000 steps took 1.5 GB before the first step ran (issue 46
// item 7). Read in parts, a file gives the same steps and the same problems, at the same lines and columns,
// as read whole; a file that cannot be cut safely is read whole.
import { describe, expect, it } from 'vitest';
import { readScenario } from '../src/flows/scenario/scenario-file.js';
import { stepParts } from '../src/flows/scenario/scenario-parts.js';

const whole = (text: string) => readScenario('s.yaml', text, { partedFromBytes: Infinity });
const inParts = (text: string) => readScenario('s.yaml', text, { partedFromBytes: 0 });

/** `n` steps of every kind the format has, with comments, a blank line, CRLF where asked. */
function steps(n: number, indent = '  '): string {
  const out: string[] = [];
  for (let i = 1; i <= n; i++) {
    const s = `${indent}- `;
    const more = `${indent}  `;
    if (i % 4 === 0)
      out.push(
        `${s}name: initiate ${i} \${run.reference}`,
        `${more}run: deposit initiate`,
        `${more}flags: { currency: GHS, amount: "1", reference: "\${run.reference}-${i}" }`,
        `${more}capture: { hash_${i}: data.hash_token }`,
      );
    else if (i % 4 === 1)
      out.push(
        `${s}name: read ${i}`,
        `${more}# a comment inside a step`,
        `${more}request: { method: GET, path: /merchant/currencies }`,
        `${more}expect:`,
        `${more}  status: 200`,
        `${more}  values: { "data[0].code": { matches: "^[A-Z]{3}$" } }`,
      );
    else if (i % 4 === 2)
      out.push(
        `${s}name: note ${i}`,
        `${more}request:`,
        `${more}  method: POST`,
        `${more}  path: /merchant/notes`,
        `${more}  json:`,
        `${more}    text: |`,
        `${more}      - not a step: a line of a block scalar`,
        `${more}      - its second line`,
        '',
        `# a comment at the left margin between steps`,
      );
    else out.push(`${s}name: status ${i}`, `${more}run: status`, `${more}args: ["\${hash_${i - 3}}"]`);
  }
  return out.join('\n');
}

describe('a large scenario file read in parts', () => {
  it('gives the steps a whole read gives, 450 steps across three parts, indented or not, CRLF too', () => {
    for (const text of [
      `name: many\nvars: { who: Ama }\nsteps:\n${steps(450)}\n`,
      `name: many\nsteps:\n\n# the steps\n${steps(450, '')}`,
      `name: many\r\nsteps:\r\n${steps(450).replace(/\n/g, '\r\n')}\r\n`,
    ]) {
      const a = whole(text);
      const b = inParts(text);
      expect(a.problems).toEqual([]);
      expect(a.scenario.steps.length, text.slice(0, 40)).toBe(450);
      expect(b.scenario.steps.length, JSON.stringify(text.slice(0, 30)) + JSON.stringify(b.problems)).toBe(
        450,
      );
      expect(b).toEqual(a);
      expect(b.scenario.steps[449]!.index).toBe(450);
    }
  });

  it('finds the same problems at the same lines and columns', () => {
    const bad = steps(450).split('\n');
    // a mistyped key in the second part, an unknown request key and a bad status in the third
    bad[bad.indexOf('  - name: status 223') + 1] = '    rnu: status';
    bad[bad.indexOf('  - name: read 401') + 2] =
      '    request: { method: GET, path: /merchant/currencies, extra: 1 }';
    bad[bad.indexOf('  - name: read 445') + 4] = '      status: 999';
    const text = `name: many\nfoo: 1\nsteps:\n${bad.join('\n')}\n`;
    const a = whole(text);
    expect(a.problems.map((p) => p.message)).toEqual([
      expect.stringContaining('unknown key "foo"'),
      expect.stringContaining('did you mean `run:`'),
      expect.stringContaining('unknown key "extra"'),
      expect.stringContaining('status is an HTTP status'),
    ]);
    expect(inParts(text)).toEqual(a);
  });

  it('finds a YAML error and an alias at their places, and nothing else', () => {
    const bad = steps(450).split('\n');
    bad[bad.indexOf('  - name: read 405')] = '  - name: read 405 *x';
    bad[bad.indexOf('  - name: status 303') + 2] = '    args: ["${hash_300}"';
    bad[bad.indexOf('  - name: read 9') + 2] = '    request: { method: GET, path: *p }';
    const text = `name: many\nfoo: 1\nsteps:\n${bad.join('\n')}\n`;
    const a = whole(text);
    expect(a.problems.length).toBeGreaterThan(0);
    expect(a.problems.some((p) => p.message.startsWith('an alias (*p)'))).toBe(true);
    const b = inParts(text);
    const key = (p: { at: { line: number; col: number }; message: string }) =>
      `${p.at.line}:${p.at.col} ${p.message}`;
    expect(b.problems.map(key).sort()).toEqual(a.problems.map(key).sort());
  });

  it('reads whole a file it cannot cut: a key after the steps, a flow list, a list of steps alone', () => {
    for (const text of [
      `name: many\nsteps:\n${steps(450)}\nenvironment: sandbox\n`,
      `name: many\nsteps: [{ name: a, request: { path: /merchant/currencies } }]\n`,
      steps(450, ''),
    ]) {
      const b = inParts(text);
      expect(b).toEqual(whole(text));
      expect(b.scenario.steps.length).toBeGreaterThan(0);
    }
  });

  it('cuts a file into parts of at most 200 steps each, which together are the file', () => {
    const text = `name: many\nsteps:\n${steps(450)}\n`;
    const cut = stepParts(text)!;
    const items = (t: string) => t.split('\n').filter((l) => l.startsWith('  - ')).length;
    expect(cut.parts.map((p) => items(p.text))).toEqual([200, 200, 50]);
    expect(cut.head + cut.parts.map((p) => p.text).join('')).toBe(`${text}`);
    expect(cut.parts[1]!.lineBase).toBe(text.split('\n').indexOf('  - name: read 201'));
  });
});

it('tells a quoted text over several lines cut at a `- ` line as the whole file tells it', () => {
  // the 201st item's name continues on a line that starts with `- ` at the list's indentation: YAML does
  // not allow it (the whole file's errors), and the cut there splits the quoted text; a part's YAML error
  // sends the reader back to the whole file, so the problems are the file's, at its places
  let text = 'steps:\n';
  for (let i = 0; i < 200; i++) text += '- run: countries\n';
  text += '- name: "first line\n- second line"\n  run: countries\n';
  for (let i = 0; i < 5; i++) text += '- run: countries\n';
  const read = whole(text);
  expect(read.problems.length).toBeGreaterThan(0);
  expect(inParts(text)).toEqual(read);
});
