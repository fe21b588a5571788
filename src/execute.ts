// The one module bin/run.js loads: oclif's runner and every command class, bundled into dist/mpay.cjs so
// that Node reads one file instead of hundreds (docs/performance.md). The command classes are light: they
// load what they need with dynamic imports, which esbuild wraps to run on first use (inquirer, cli-table3,
// conf, fastify and qrcode-terminal stay in node_modules and load from there). oclif finds the commands
// here through the "explicit" command strategy in package.json.
import Api from './commands/api.js';
import AuthMigrate from './commands/auth/migrate.js';
import AuthStatus from './commands/auth/status.js';
import Balances from './commands/balances.js';
import ConfigGet from './commands/config/get.js';
import ConfigList from './commands/config/list.js';
import ConfigSet from './commands/config/set.js';
import Countries from './commands/countries.js';
import Currencies from './commands/currencies.js';
import Demo from './commands/demo.js';
import Deposit from './commands/deposit/index.js';
import DepositBatch from './commands/deposit/batch.js';
import DepositInitiate from './commands/deposit/initiate.js';
import DepositProcess from './commands/deposit/process.js';
import Docs from './commands/docs.js';
import Doctor from './commands/doctor.js';
import History from './commands/history/index.js';
import HistoryPrune from './commands/history/prune.js';
import HistoryShow from './commands/history/show.js';
import Login from './commands/login.js';
import Logout from './commands/logout.js';
import ProfilesList from './commands/profiles/list.js';
import ProfilesRemove from './commands/profiles/remove.js';
import ProfilesUse from './commands/profiles/use.js';
import Proxy from './commands/proxy.js';
import Replay from './commands/replay.js';
import Sandbox from './commands/sandbox.js';
import Status from './commands/status.js';
import SupportBundle from './commands/support/bundle.js';
import Token from './commands/token.js';
import Wallet from './commands/wallet.js';
import Whoami from './commands/whoami.js';
import Withdraw from './commands/withdraw/index.js';
import WithdrawBatch from './commands/withdraw/batch.js';
import WithdrawBatchConfirm from './commands/withdraw/batch/confirm.js';
import WithdrawInitiate from './commands/withdraw/initiate.js';
import WithdrawProcess from './commands/withdraw/process.js';

export { execute } from '@oclif/core/execute';
// Loaded by oclif from this bundle through package.json's oclif.helpClass and oclif.hooks.
export { MpayHelp, commandNotFound } from './shell/help.js';

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
  history: History,
  'history:prune': HistoryPrune,
  'history:show': HistoryShow,
  login: Login,
  logout: Logout,
  'profiles:list': ProfilesList,
  'profiles:remove': ProfilesRemove,
  'profiles:use': ProfilesUse,
  proxy: Proxy,
  replay: Replay,
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
