// npm run bench: a scenario of 100 steps (`mpay run`, every step in its one process) against the same calls
// made by a shell script of mpay commands (a process a call), on the bench's sandbox. Half the steps are
// deposit initiates (the hash token captured), half status updates of them: 100 money calls, each journaled
// through the gate. The target (issue 36): the scenario within 1.5x the script's time.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const scenarioTargetRatio = 1.5;

const customer = ['--currency', 'GHS', '--country', 'GH', '--amount', '1', '--first-name', 'Bench'];
const contact = ['--phone', '+233201234567', '--email', 'bench@example.com'];

function scenarioFile(dir, pairs) {
  const steps = [];
  for (let i = 1; i <= pairs; i++)
    steps.push(
      `  - name: initiate ${i}
    run: deposit initiate
    flags: { currency: GHS, country: GH, amount: "1", first-name: Bench, phone: "+233201234567", email: bench@example.com, reference: "\${run.reference}-${i}" }
    capture: { hash_${i}: hash_token }
  - name: status ${i}
    run: status
    args: ["\${hash_${i}}"]
    flags: { status: initiated, gateway: 1 }
`,
    );
  const path = join(dir, 'bench.yaml');
  writeFileSync(path, `name: bench\nsteps:\n${steps.join('')}`);
  return path;
}

function shellScript(dir, bin, pairs) {
  const node = JSON.stringify(process.execPath);
  const mpay = `${node} ${JSON.stringify(bin)}`;
  const lines = ['set -e', `for i in $(seq 1 ${pairs}); do`];
  lines.push(
    `  h=$(${mpay} deposit initiate ${[...customer, ...contact].join(' ')} --reference "bench-sh-$1-$i" --query hash_token)`,
    `  ${mpay} status "\${h//\\"/}" --status initiated --gateway 1 --json > /dev/null`,
    'done',
  );
  const path = join(dir, 'bench.sh');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

function timed(cmd, args, env) {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return Number(process.hrtime.bigint() - t) / 1e9;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The medians of `rounds` runs of each, interleaved, in config folders of their own. */
export function benchScenario({ bin, env, steps = 100, rounds = 3 }) {
  const dir = mkdtempSync(join(tmpdir(), 'mpay-bench-scenario-'));
  const pairs = steps / 2;
  const file = scenarioFile(dir, pairs);
  const script = shellScript(dir, bin, pairs);
  const times = { scenario: [], shell: [] };
  for (let r = 0; r < rounds; r++) {
    const own = { ...env, MPAY_CONFIG_DIR: mkdtempSync(join(dir, 'cfg-')) };
    times.scenario.push(timed(process.execPath, [bin, 'run', file], own));
    times.shell.push(timed('bash', [script, `${process.pid}-${r}`], own));
  }
  const scenario = median(times.scenario);
  const shell = median(times.shell);
  return {
    steps,
    scenario_seconds: +scenario.toFixed(2),
    shell_script_seconds: +shell.toFixed(2),
    ratio_to_shell: +(scenario / shell).toFixed(2),
  };
}
