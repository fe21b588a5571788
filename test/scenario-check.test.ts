// A scenario is checked whole before anything is sent (flows/scenario/scenario-check.ts): each mistake a step can
// make is named, with the step and the rule, at its place; and a file at the edge of each rule (exit 255,
// a --no- switch, a flag given twice where it may be, `${run.reference}` in a step's name, a capture used
// by the step after the one that makes it) is no mistake. Against the strict sandbox: any request fails.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exitCodes } from '../src/common/errors.js';
import { cliEnv, file, tempDir } from './helpers.js';
import { mpay } from './in-process.js';
import { strictSandbox, type StrictSandbox } from './strict.js';

let sb: StrictSandbox;
beforeEach(async () => {
  sb = await strictSandbox();
});
afterEach(async () => {
  await sb.close();
});

/** The problems `mpay run` finds in a file: each line of its stderr, exit 2, nothing sent. */
async function problems(yaml: string, ...more: string[]): Promise<string[]> {
  const r = await mpay(['run', file('s.yaml', yaml), '--json', ...more], { env: cliEnv(sb, tempDir()) });
  expect(r.code, r.stderr).toBe(2);
  sb.verify();
  expect(sb.forwarded).toEqual([]);
  return r.stderr
    .split('\n')
    .filter((l) => /s\.yaml:\d+:\d+: /.test(l))
    .map((l) => l.replace(/^.*?s\.yaml:\d+:\d+: /, ''));
}

describe('each mistake, named', () => {
  it('each run-only flag, one spelled with dashes, an argument to a command of none, a reference to nothing or to a later capture, a cycle reached from another variable, a required variable', async () => {
    const found = await problems(`name: more
vars:
  x: "\${a}"
  a: "\${b}"
  b: "\${a}"
  who: ~
steps:
  - name: run only, each
    run: currencies
    flags: { profile: p, env: sandbox, base-url: "http://127.0.0.1:9", query: "[0]", debug: true, yes: true, no-input: true, trace: t.har }
  - name: dashes
    run: currencies
    flags: { "--json": true }
  - name: no arguments
    run: currencies
    args: [x]
  - name: undefined
    run: status
    args: ["\${nowhere}"]
  - name: too early
    run: status
    args: ["\${late}"]
  - name: late
    run: currencies
    capture: { late: "[0].code" }
  - name: two words
    run: withdraw process
    args: [a, b]
  - name: no- of nothing
    run: deposit
    flags: { abcwallet: true }
`);
    expect(found).toEqual([
      // the cycle as it is, not the variable it was reached from
      'a cycle among the variables: ${a} → ${b} → ${a}',
      'variable who is required and not given: --var who=…, --vars FILE or MPAY_VAR_who',
      ...['profile', 'env', 'base-url', 'query', 'debug', 'yes', 'no-input', 'trace'].map(
        (f) => `step "run only, each": --${f} is set on \`mpay run\` for the whole run, not in a step`,
      ),
      'step "dashes": --json is set on `mpay run` for the whole run, not in a step',
      'step "no arguments": `mpay currencies` takes 0 arguments, not 1',
      '${nowhere} is undefined: neither a variable (--var nowhere=…) nor a capture of an earlier step',
      expect.stringMatching(
        /^a cycle: step "too early" uses \$\{late\}, captured only by the later step "late" \(.*s\.yaml:\d+:\d+\)$/,
      ),
      'step "two words": `mpay withdraw process` takes 1 argument, not 2',
      // a flag's name cut after three characters is no --no- of another
      'step "no- of nothing": unknown flag --abcwallet of `mpay deposit`',
    ]);
  });

  it('commands: unknown, not a step, too many arguments, a run-only flag, unknown flags, stdin, switches, one value', async () => {
    const found = await problems(`name: commands
steps:
  - name: no such
    run: frobnicate
  - name: not a step
    run: login
  - name: two arguments
    run: status
    args: [a, b]
  - name: run only
    run: currencies
    flags: { json: true }
  - name: unknown
    run: currencies
    flags: { nope: 1 }
  - name: no negation
    run: balances
    flags: { no-nope: true }
  - name: no negation of a plain switch
    run: deposit
    flags: { no-dry-run: true }
  - name: stdin
    run: withdraw process
    args: [x]
    flags: { otp-stdin: true }
  - name: input
    run: api
    args: [POST, /payments/initiate]
    flags: { input: "-" }
  - name: switch
    run: wallet
    args: [x]
    flags: { dry-run: "yes" }
  - name: once
    run: status
    args: [x]
    flags: { status: [a, b] }
`);
    expect(found).toEqual([
      'step "no such": unknown command `mpay frobnicate`',
      'step "not a step": `mpay login` cannot be a step (one of: api, balances, countries, currencies, deposit, deposit initiate, deposit process, doctor, history show, status, wallet, whoami, withdraw, withdraw initiate, withdraw process)',
      'step "two arguments": `mpay status` takes 1 argument, not 2',
      'step "run only": --json is set on `mpay run` for the whole run, not in a step',
      'step "unknown": unknown flag --nope of `mpay currencies`',
      'step "no negation": unknown flag --no-nope of `mpay balances`',
      'step "no negation of a plain switch": unknown flag --no-dry-run of `mpay deposit`',
      'step "stdin": --otp-stdin reads stdin, which a step has not (the run\'s own stdin is not passed on): give otp: "${otp}" and --var otp=…',
      'step "input": --input - reads stdin, which a step has not (the run\'s own stdin is not passed on): give the body as the step\'s fields',
      'step "switch": --dry-run is a switch: true or false',
      'step "once": --status takes one value',
    ]);
  });

  it('expectations and captures: an exit that is none, a JMESPath that is none, a regular expression that is none', async () => {
    const found = await problems(`name: checks
steps:
  - name: exit 256
    run: currencies
    expect: { exit: 256 }
  - name: exit -1
    run: currencies
    expect: { exit: -1 }
  - name: exit 1.5
    run: currencies
    expect: { exit: 1.5 }
  - name: exit kind
    run: currencies
    expect: { exit: nope }
  - name: paths
    run: currencies
    capture: { c: "[0" }
    expect:
      values:
        "a[": 1
        b: { matches: "(" }
`);
    const kinds = Object.keys(exitCodes).join(', ');
    for (const n of ['exit 256', 'exit -1', 'exit 1.5', 'exit kind'])
      expect(found).toContain(`step "${n}": expect.exit is an exit code or a kind (${kinds})`);
    expect(kinds).toMatch(/^unexpected, usage, auth, validation, state, /);
    expect(found).toContainEqual(expect.stringMatching(/^capture c: not a JMESPath \(.+\)$/));
    expect(found).toContainEqual(expect.stringMatching(/^the expected value at a\[: not a JMESPath \(.+\)$/));
    expect(found).toContainEqual(expect.stringMatching(/^the check matches of b: .+/));
    expect(found).toHaveLength(7);
  });

  it('variables and references: required, a cycle, not a variable, a capture named as a variable, a name, itself', async () => {
    const found = await problems(`name: references
vars:
  a: "\${b}"
  b: "\${a}"
  otp: ~
  c: "\${nothing}"
  taken: x
steps:
  - name: capture a variable's name
    run: currencies
    capture: { taken: "[0].code" }
  - name: "named \${later}"
    run: currencies
    capture: { later: "[0].code" }
  - name: uses itself
    run: status
    args: ["\${self}"]
    capture: { self: status }
`);
    expect(found).toEqual([
      expect.stringMatching(/^a cycle among the variables: \$\{[ab]\} → \$\{[ab]\} → \$\{[ab]\}$/),
      'variable otp is required and not given: --var otp=…, --vars FILE or MPAY_VAR_otp (or --otp-stdin, or run it on a terminal to be asked)',
      '${nothing} in variable c is not a variable',
      'capture taken has the name of a variable: rename one',
      '${later} in the name of step "named ${later}" is not a variable: a name may use variables and ${run.reference}, not captures (it is shown before the step runs)',
      'a cycle: step "uses itself" uses ${self}, which it captures itself',
    ]);
  });
});

it('a file at the edge of each rule is no mistake: nothing is refused before it runs', async () => {
  sb.allowReads();
  const r = await mpay(
    [
      'run',
      file(
        'fine.yaml',
        `name: fine
vars:
  cur: GHS
  ref: "\${run.reference}-x"
  code: ~
steps:
  - name: "\${cur} at \${run.reference}"
    run: currencies
    capture: { first: "[0].code" }
    expect: { exit: 0, values: { "[0].code": { matches: "^[A-Z]{3}$" } } }
  - name: last exit code
    run: api
    args: [GET, /public/currencies]
    flags: { raw-field: [a=1, b=2], header: "X-One: 1" }
    expect: { exit: 255 }
  - name: a negated switch
    run: deposit
    flags: { no-wallet: true, dry-run: true, currency: GHS, country: GH, amount: "1", first-name: A, phone: "+233201234567", email: a@example.com, reference: "\${ref}" }
    expect: { exit: 0 }
  - name: a kind
    run: status
    args: ["\${first}"]
    expect: { exit: usage }
  - name: no stdin read
    run: withdraw process
    args: ["\${ref}"]
    flags: { otp-stdin: false, otp: "\${code}" }
    expect: { exit: usage }
`,
      ),
      '--var',
      'code=123456',
      '--json',
    ],
    { env: cliEnv(sb, tempDir()) },
  );
  // it ran: the steps' own outcomes, not a refusal of the file (exit 2 with its problems)
  expect(r.stderr).not.toMatch(/fine\.yaml:\d+:\d+:/);
  expect(r.json().scenarios[0].steps.map((s: { name: string }) => s.name)).toHaveLength(5);
});

it('given variables, a capture made again later, a reference in a path, stdin not read: no mistake beside the one made on purpose', async () => {
  const found = await problems(
    `name: edge
vars:
  p: "\${q}"
  q: "\${p}"
  d: "\${extra}"
  field: code
steps:
  - name: "first, for \${extra}"
    run: currencies
    capture: { c: "[0].code" }
  - name: uses it
    run: currencies
    capture: { "n": "[0].\${field}" }
    expect: { values: { "[?code=='\${c}'] | [0].\${field}": "\${c}" } }
  - name: captures it again
    run: currencies
    capture: { c: "[1].code" }
  - name: a body from a file
    run: api
    args: [GET, /public/currencies]
    flags: { input: body.json }
  - name: a dash as a value is no stdin but for --input
    run: deposit
    flags: { dry-run: true, reference: "-" }
  - name: the mistake
    run: frobnicate
`,
    '--var',
    'p=1',
    '--var',
    'extra=2',
  );
  expect(found).toEqual(['step "the mistake": unknown command `mpay frobnicate`']);
});
