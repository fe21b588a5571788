// Which steps of a scenario move money (flows/scenario/scenario-check.ts isMoneyStep), in this process: a payment
// command, `mpay api` or a request to a money endpoint in any spelling, and, when in doubt (a path built
// from a variable, or no path at all), money. End-to-end refusals on a live server are in
// scenario-safety.test.ts.
import { describe, expect, it } from 'vitest';
import { isMoneyStep } from '../src/flows/scenario/scenario-check.js';
import { readScenario } from '../src/flows/scenario/scenario-file.js';

/** The steps of a file, read as mpay run reads it, by name: whether each is money. */
function moneyOf(steps: string): Record<string, boolean> {
  const { scenario, problems } = readScenario('s.yaml', `name: s\nsteps:\n${steps}`);
  expect(problems).toEqual([]);
  return Object.fromEntries(scenario.steps.map((s) => [s.name, isMoneyStep(s)]));
}

describe('isMoneyStep', () => {
  it('takes a request whose path is built from a variable as money, whatever else it holds', () => {
    expect(
      moneyOf(`  - name: whole
    request: { method: POST, path: "\${target}" }
  - name: a part
    request: { method: POST, path: "/payments/\${which}" }
  - name: api whole
    run: api
    args: [POST, "\${target}"]
`),
    ).toEqual({ whole: true, 'a part': true, 'api whole': true });
  });

  it('takes a request or mpay api to a money endpoint, in any spelling, as money; a read is not', () => {
    expect(
      moneyOf(`  - name: initiate
    request: { method: POST, path: /payments/initiate }
  - name: spelled
    request: { method: POST, path: "payments//Withdraw/%69nitiate/" }
  - name: api
    run: api
    args: [POST, payments/status/update]
  - name: api read
    run: api
    args: [GET, merchant/currencies]
  - name: read
    request: { method: GET, path: /public/currencies }
  - name: deposit
    run: deposit initiate
  - name: countries
    run: countries
`),
    ).toEqual({
      initiate: true,
      spelled: true,
      api: true,
      'api read': false,
      read: false,
      deposit: true,
      countries: false,
    });
  });

  it('takes each payment command as money, and each other command a step may run as none', () => {
    const money = [
      'deposit',
      'deposit initiate',
      'deposit process',
      'status',
      'wallet',
      'withdraw',
      'withdraw initiate',
      'withdraw process',
    ];
    const reads = ['balances', 'countries', 'currencies', 'doctor', 'history show', 'whoami'];
    const steps = [...money, ...reads].map((c) => `  - name: ${c}\n    run: ${c}\n`).join('');
    expect(moneyOf(steps)).toEqual(
      Object.fromEntries([...money.map((c) => [c, true]), ...reads.map((c) => [c, false])]),
    );
  });

  it('takes a request whose path is not text (a number, a list, null in the file) as money; a step with neither is not', () => {
    const { scenario } = readScenario(
      's.yaml',
      'name: s\nsteps:\n  - name: r\n    request: { method: POST, path: /public/countries }\n',
    );
    const step = scenario.steps[0]!;
    expect(isMoneyStep(step)).toBe(false);
    for (const path of [42, ['payments', 'initiate'], null, undefined])
      expect(isMoneyStep({ ...step, request: { ...step.request!, path } }), String(path)).toBe(true);
    expect(isMoneyStep({ ...step, request: undefined, run: undefined })).toBe(false);
  });

  it('a full URL or a path with slashes before it is classified on its path too', () => {
    expect(
      moneyOf(`  - name: full
    request: { method: POST, path: "https://other.example/payments/initiate" }
  - name: slashes
    request: { method: POST, path: "///payments/withdraw/processed" }
  - name: read
    request: { method: GET, path: "//merchant/currencies" }
`),
    ).toEqual({ full: true, slashes: true, read: false });
  });
});
