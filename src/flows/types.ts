// What the flows share: their inputs, dependencies and result, and how they report progress. The terminal
// implementations (inquirer prompter, reporter) live in ui/; flows see only these interfaces.
import type { Client } from '../api/client.js';
import type { TokenStore } from '../api/credentials.js';
import type { Pacer, Throttle } from '../api/rate-limit.js';
import type {
  InitiatedPayment,
  MerchantCurrency,
  StatusUpdateResult,
  Transaction,
  WalletAddressUpdateResult,
} from '../api/schemas.js';
import type { JournalLike } from '../journal/journal.js';
import type { Kind, Place } from '../journal/records.js';
import type { Prompter } from './prompter.js';
import type { Otp } from './payment/inputs.js';
import type { MoneyGate } from './gate/money-gate.js';

export interface FlowInputs {
  currency?: string;
  country?: string;
  amount?: string;
  firstName?: string;
  lastName?: string;
  phone?: string;
  email?: string;
  reference?: string;
  /** checked once where it came in (a flag, a row): a gateway id */
  gateway?: number;
  receiverEmail?: string;
  phoneNumber?: string;
  /** --wallet / --no-wallet: overrides the wallet rule */
  wallet?: boolean;
  /** checked once where it came in */
  otp?: Otp;
}

/** How a flow tells a person what is happening; the terminal one lives in ui/. */
export interface Reporter {
  step(title: string): void;
  info(line: string): void;
  wait<T>(label: string, work: Promise<T>): Promise<T>;
  address(address: string, asQr: boolean): Promise<void>;
}

export const silentReporter: Reporter = {
  step: () => {},
  info: () => {},
  wait: (_l, w) => w,
  address: async () => {},
};

export interface FlowDeps {
  client: Client;
  journal: JournalLike;
  /** absent when mpay must not ask (no terminal, --no-input, CI) */
  prompter?: Prompter;
  reporter?: Reporter;
  env: string;
  /** the run's one money gate (flows/gate/money-gate.ts): shared by every copy of these deps */
  gate: MoneyGate;
  /** send an amount outside the merchant currency's limits anyway */
  force?: boolean;
  /** the command line that resumes, for messages: `mpay deposit` */
  command?: string;
  /** the server and merchant of this run, and the profile and environment that chose them */
  place?: Place;
  /** the profile's wallet_gateways for this environment: when set, it settles the wallet rule */
  walletGateways?: number[];
  /** the merchant's currencies, already read: a batch reads them once for all its rows, not once a row */
  currencies?: MerchantCurrency[];
  /**
   * The run's first Ctrl-C (a payment command's): once aborted, no journaled step starts; the one in
   * flight finishes and is journaled with its answer.
   */
  stop?: AbortSignal;
}

/** The merchant's currencies: those the caller already read, else one GET. */
export const merchantCurrencies = (deps: FlowDeps): Promise<MerchantCurrency[]> =>
  deps.currencies ? Promise.resolve(deps.currencies) : deps.client.merchantCurrencies();

export interface FlowResult {
  kind: Kind;
  reference: string;
  hash_token?: string;
  status?: string;
  gateway?: { id: number; name: string; payment_method?: string | null };
  initiated?: InitiatedPayment;
  wallet?: WalletAddressUpdateResult;
  status_update?: StatusUpdateResult;
  transaction?: Transaction;
  /** what the flow waits for when it stopped early */
  next?: 'otp';
  resume?: string;
  message?: string;
}

export const title = (k: Kind) => (k === 'deposit' ? 'deposit' : 'withdrawal');

/** What a run asks of its flow's dependencies (Factory.flowDeps). */
export interface FlowSettings {
  dryRun?: boolean;
  force?: boolean;
  command: string;
  /** batch --new-batch: rows whose records live at another place are new here */
  newHere?: boolean;
  /** a batch's pace and its report of waits, handed to the client it is made with */
  pacer?: Pacer;
  onThrottle?: (t: Throttle) => void;
  /** where the client keeps its token, when not the context's cache (replay's fresh one) */
  tokens?: TokenStore;
}
