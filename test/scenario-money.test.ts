// Which steps of a scenario move money (flows/scenario-check.ts isMoneyStep), in this process: a payment
// command, `mpay api` or a request to a money endpoint in any spelling, and, when in doubt (a path built
// from a variable, or no path at all), money. End-to-end refusals on a live server are in
// scenario-safety.test.ts.
import { describe, expect, it } from 'vitest';
import { isMoneyStep } from '../src/flows/scenario-check.js';
import { readScenario } from '../src/flows/scenario-file.js';

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
});
