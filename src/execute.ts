// The one module bin/run.js loads: oclif's runner and every command class, bundled into dist/mpay.cjs so
// that Node reads one file instead of hundreds (docs/performance.md). The command classes are light: they
// load what they need with dynamic imports, which esbuild wraps to run on first use (inquirer, cli-table3,
// conf, fastify and qrcode-terminal stay in node_modules and load from there). oclif finds the commands
// here through the "explicit" command strategy in package.json.
import Api from './commands/api/command.js';
import AuthMigrate from './commands/auth/migrate/command.js';
import AuthStatus from './commands/auth/status/command.js';
import Balances from './commands/balances/command.js';
import ConfigGet from './commands/config/get/command.js';
import ConfigList from './commands/config/list/command.js';
import ConfigSet from './commands/config/set/command.js';
import Countries from './commands/countries/command.js';
import Currencies from './commands/currencies/command.js';
import Demo from './commands/demo/command.js';
import Deposit from './commands/deposit/command.js';
import DepositBatch from './commands/deposit/batch/command.js';
import DepositInitiate from './commands/deposit/initiate/command.js';
import DepositProcess from './commands/deposit/process/command.js';
import Docs from './commands/docs/command.js';
import Doctor from './commands/doctor/command.js';
import Mcp from './commands/mcp/command.js';
import History from './commands/history/command.js';
import HistoryPrune from './commands/history/prune/command.js';
import HistoryMove from './commands/history/move/command.js';
import HistoryResolve from './commands/history/resolve/command.js';
import HistoryShow from './commands/history/show/command.js';
import HistoryExport from './commands/history/export/command.js';
import Login from './commands/login/command.js';
import Logout from './commands/logout/command.js';
import ProfilesList from './commands/profiles/list/command.js';
import ProfilesRemove from './commands/profiles/remove/command.js';
import ProfilesUse from './commands/profiles/use/command.js';
import Proxy from './commands/proxy/command.js';
import Replay from './commands/replay/command.js';
import Run from './commands/run/command.js';
import Sandbox from './commands/sandbox/command.js';
import Status from './commands/status/command.js';
import SupportBundle from './commands/support/bundle/command.js';
import Token from './commands/token/command.js';
import Wallet from './commands/wallet/command.js';
import Whoami from './commands/whoami/command.js';
import Withdraw from './commands/withdraw/command.js';
import WithdrawBatch from './commands/withdraw/batch/command.js';
import WithdrawBatchConfirm from './commands/withdraw/batch/confirm/command.js';
import WithdrawInitiate from './commands/withdraw/initiate/command.js';
import WithdrawProcess from './commands/withdraw/process/command.js';

import { settings } from '@oclif/core/settings';

// mpay runs its own bundle, never TypeScript sources. Left alone, oclif under NODE_ENV=development or test
// (a developer's shell, a test runner) looks for each plugin's TypeScript sources on every run and
// require()s the `typescript` package to read tsconfig.json: 0.5 s of CPU a run where it is installed
// (measured: `countries --json` took 0.9 s of CPU under NODE_ENV=test, 0.38 s without).
settings.enableAutoTranspile = false;

export { execute } from '@oclif/core/execute';
// Loaded by oclif from this bundle through package.json's oclif.helpClass and oclif.hooks.
export { MpayHelp, commandNotFound } from './commands/base/help.js';
export { keyringChild } from './commands/base/keyring-child.js';
import { commandFirst } from './commands/base/command-first.js';

/** argv as oclif reads it: the global flags written before the command moved after it. */
export function argvFor(argv: readonly string[]): string[] {
  return commandFirst(argv, Object.keys(COMMANDS));
}

export const COMMANDS = {
  api: Api,
  'auth:migrate': AuthMigrate,
  'auth:status': AuthStatus,
  balances: Balances,
  'config:get': ConfigGet,
  'config:list': ConfigList,
  'config:set': ConfigSet,
  countries: Countries,
  currencies: Currencies,
  demo: Demo,
  deposit: Deposit,
  'deposit:batch': DepositBatch,
  'deposit:initiate': DepositInitiate,
  'deposit:process': DepositProcess,
  docs: Docs,
  doctor: Doctor,
  mcp: Mcp,
  history: History,
  'history:prune': HistoryPrune,
  'history:move': HistoryMove,
  'history:resolve': HistoryResolve,
  'history:show': HistoryShow,
  'history:export': HistoryExport,
  login: Login,
  logout: Logout,
  'profiles:list': ProfilesList,
  'profiles:remove': ProfilesRemove,
  'profiles:use': ProfilesUse,
  proxy: Proxy,
  replay: Replay,
  run: Run,
  sandbox: Sandbox,
  status: Status,
  'support:bundle': SupportBundle,
  token: Token,
  wallet: Wallet,
  whoami: Whoami,
  withdraw: Withdraw,
  'withdraw:batch': WithdrawBatch,
  'withdraw:batch:confirm': WithdrawBatchConfirm,
  'withdraw:initiate': WithdrawInitiate,
  'withdraw:process': WithdrawProcess,
};
