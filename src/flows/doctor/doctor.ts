// The checks of `mpay doctor`: is the base URL sound, the API reachable, the merchant key accepted, the
// bearer token honoured, the site id and API key right, and what is open to this merchant (currencies,
// gateways, which gateways get the wallet address update). Each check is handed to onCheck as it ends,
// so a person sees progress; the list is returned for --json and the exit code.
import { keyringHint } from '../../api/credentials.js';
import type { Client } from '../../api/client.js';
import { isLoopback } from '../../api/base-url.js';
import { proxyFor } from '../../api/proxy.js';
import { walletReason } from '../payment/wallet-rule.js';
import { toMpayError, type ErrorKind } from '../../common/errors.js';
import type { Gateway, InitiatedPayment, MerchantCurrency } from '../../api/schemas.js';
import type { JournalLike } from '../../journal/journal.js';
import type { MoneyGate, ProbeTicket } from '../gate/money-gate.js';
import { historyShowCommand, runAgain } from '../standing.js';
import type { Context } from '../../config/context.js';
import { commandLine, shownValue } from '../../common/shell-words.js';

/** Where the profile's secrets are kept: the keyring, or config.json and whether a keyring works here. */
async function secretsCheck(ctx: Context): Promise<Check | undefined> {
  const src = ctx.credentialSources;
  if (src.merchantKey === 'env' && src.apiKey === 'env')
    return {
      name: 'secrets',
      ok: true,
      detail: 'merchant key and API key from the environment, never stored',
    };
  const stored = ctx.store.credentials(ctx.profileName);
  if (stored.problem)
    return {
      name: 'secrets',
      ok: false,
      detail: stored.problem,
      hint: stored.unavailable
        ? keyringHint
        : "Run `mpay auth status` for the keyring's state, or `mpay login` to store the credentials again",
      kind: 'local',
    };
  if (stored.store === 'keyring')
    return {
      name: 'secrets',
      ok: true,
      detail: `merchant key and API key in the ${ctx.profile.keyringName}`,
    };
  if (stored.store !== 'file') return undefined;
  const opening = await ctx.store.keyring({ probe: true });
  return {
    name: 'secrets',
    ok: true,
    detail:
      'keyring' in opening
        ? `in ${ctx.store.path} (mode 0600); the ${opening.keyring.name} works here: \`${commandLine(['mpay', 'auth', 'migrate', '--profile', ctx.profileName])}\` moves them into it`
        : `in ${ctx.store.path} (mode 0600); no keyring: ${opening.unavailable}`,
  };
}

export interface Check {
  name: string;
  ok: boolean;
  /** not run (the API-key check on a live server, unless asked): ok, and said so */
  skipped?: boolean;
  detail: string;
  hint?: string;
  /** the kind whose exit code a failed check earns */
  kind?: ErrorKind;
}

export async function runChecks(
  ctx: Context,
  client: Client,
  onCheck: (c: Check) => void,
  environ: NodeJS.ProcessEnv,
  /** where a withdrawal the credentials check created after all is recorded */
  journal: JournalLike,
  /** the money gate the credentials probe passes, and whether a live server's probe was asked for */
  probe: { gate: MoneyGate; explicit: boolean; skip?: string },
): Promise<Check[]> {
  const checks: Check[] = [];
  const run: DoctorRun = { ctx, client, environ, journal, currencies: [], probe };
  for (const { check, needed } of steps) {
    const c = await check(run);
    if (!c) continue;
    checks.push(c);
    onCheck(c);
    if (needed && !c.ok) break;
  }
  return checks;
}

interface DoctorRun {
  ctx: Context;
  client: Client;
  environ: NodeJS.ProcessEnv;
  journal: JournalLike;
  /** the merchant's currencies, as the bearer token check read them for the checks after it */
  currencies: MerchantCurrency[];
  /** `skip`: why the API-key check is not sent at all (`mpay mcp --read-only`) */
  probe: { gate: MoneyGate; explicit: boolean; skip?: string };
}

type CheckStep = (run: DoctorRun) => Check | undefined | Promise<Check | undefined>;

/**
 * The checks in the order they run. A check marked `needed` that fails ends the run: the checks after it
 * need what it found wanting (an answer from the API, the credentials, a token, the merchant's currencies).
 */
const steps: { check: CheckStep; needed?: true }[] = [
  { check: baseUrlCheck },
  { check: proxyCheck },
  { check: reachableCheck, needed: true },
  { check: ({ ctx }) => secretsCheck(ctx) },
  { check: credentialsCheck, needed: true },
  { check: merchantKeyCheck, needed: true },
  { check: bearerTokenCheck, needed: true },
  { check: siteIdCheck },
  { check: apiKeyCheck },
  { check: ({ currencies }) => openCheck('deposits', currencies, 'deposite') },
  { check: ({ currencies }) => openCheck('withdrawals', currencies, 'withdraw') },
  { check: ({ currencies }) => gatewaysCheck('collection', currencies) },
  { check: ({ currencies }) => gatewaysCheck('disbursement', currencies) },
  { check: ({ ctx, currencies }) => walletCheck(ctx.profile.walletGateways?.[ctx.env], ctx.env, currencies) },
];

// The hint of a failed check says what to do about it: never "run mpay doctor", which is where we are.
function failed(name: string, err: unknown, hint?: string): Check {
  const e = toMpayError(err);
  const own = e.hint && !/mpay doctor/.test(e.hint) ? e.hint : undefined;
  return { name, ok: false, detail: e.message, hint: hint ?? own, kind: e.kind };
}

function baseUrlCheck({ ctx }: DoctorRun): Check {
  const url = new URL(ctx.baseUrl);
  return {
    name: 'base URL',
    ok: url.protocol === 'https:' || isLoopback(url.hostname),
    detail: `${ctx.baseUrl} (${ctx.env}, profile ${ctx.profileName})${url.protocol === 'http:' ? ', plain http on loopback' : ''}`,
    hint: 'Use https:// for any host that is not loopback',
    kind: 'usage',
  };
}

function proxyCheck({ ctx, environ }: DoctorRun): Check {
  const proxy = proxyFor(ctx.baseUrl, environ);
  return {
    name: 'proxy and CA',
    ok: true,
    detail: `${proxy ? `proxy ${proxy.replace(/\/\/[^@/]*@/, '//***@')}` : 'no proxy'}; ${environ.NODE_EXTRA_CA_CERTS ? `extra CA ${environ.NODE_EXTRA_CA_CERTS}` : 'system CAs'}`,
  };
}

async function reachableCheck({ client }: DoctorRun): Promise<Check> {
  try {
    const countries = await client.publicCountries();
    return { name: 'API reachable', ok: true, detail: `public countries answered (${countries.length})` };
  } catch (err) {
    return failed('API reachable', err);
  }
}

/** Only a failure: credentials that are all there need no line of their own. */
function credentialsCheck({ ctx }: DoctorRun): Check | undefined {
  const names = { merchantKey: 'merchant key', siteId: 'site id', apiKey: 'API key' } as const;
  const missing = (['merchantKey', 'siteId', 'apiKey'] as const).filter((k) => !ctx.credentials[k]);
  if (missing.length === 0) return undefined;
  return {
    name: 'credentials',
    ok: false,
    detail: `missing ${missing.map((k) => names[k]).join(', ')}${ctx.credentials.unreadable ? ` (${ctx.credentials.unreadable})` : ''}`,
    hint: 'Run `mpay login`, or set MPAY_MERCHANT_KEY, MPAY_SITE_ID, MPAY_API_KEY',
    kind: 'usage',
  };
}

async function merchantKeyCheck({ ctx, client }: DoctorRun): Promise<Check> {
  try {
    await ctx.tokens.clear();
    await client.generateToken();
    return {
      name: 'merchant key',
      ok: true,
      detail: `accepted (${ctx.credentialSources.merchantKey}); token cached`,
    };
  } catch (err) {
    return failed('merchant key', err);
  }
}

async function bearerTokenCheck(run: DoctorRun): Promise<Check> {
  try {
    run.currencies = await run.client.merchantCurrencies();
    return {
      name: 'bearer token',
      ok: true,
      detail: `merchant currencies answered (${run.currencies.length})`,
    };
  } catch (err) {
    return failed('bearer token', err);
  }
}

function siteIdCheck({ ctx, currencies }: DoctorRun): Check {
  const siteIds = [...new Set(currencies.map((c) => c.service?.site_id).filter(Boolean))];
  return {
    name: 'site id',
    ok: siteIds.includes(String(ctx.credentials.siteId)),
    detail: `${ctx.credentials.siteId} ${siteIds.includes(String(ctx.credentials.siteId)) ? 'is one of the merchant services' : `is not among the merchant services (${siteIds.join(', ') || 'none'})`}`,
    hint: 'The Site ID is under the services settings of the dashboard',
    kind: 'auth',
  };
}

function apiKeyCheck({ client, journal, probe }: DoctorRun): Promise<Check> {
  if (probe.skip)
    return Promise.resolve({
      name: 'API key',
      ok: true,
      skipped: true,
      detail: `check skipped: ${probe.skip}`,
    });
  return checkApiKey(client, journal, probe, runAgain(['mpay', 'doctor', '--check-api-key'], journal.place));
}

/**
 * The API-key check of doctor and login: the credentials probe (a withdraw initiate of the credentials
 * alone, api/credentials-probe.ts) through the money gate's probe path. On a live server it is skipped
 * unless asked for (`explicit`), and `how` says how to run it.
 */
export async function checkApiKey(
  client: Client,
  journal: JournalLike,
  asked: { gate: MoneyGate; explicit: boolean },
  how: string,
): Promise<Check> {
  let opened;
  try {
    opened = await asked.gate.probe(asked.explicit, journal);
  } catch (err) {
    // refused at the live question (no terminal and no --yes, or answered no): the other checks go on
    return failed('API key', toMpayError(err), 'Pass --yes to send the check to a live server');
  }
  if (!opened)
    return {
      name: 'API key',
      ok: true,
      skipped: true,
      detail: `check skipped: ${asked.gate.server.server} is a live server, and the check is a withdraw initiate (of the credentials alone, which the API refuses); run it with \`${how}\``,
    };
  let probe: Awaited<ReturnType<Client['probeCredentials']>>;
  try {
    probe = await client.probeCredentials(opened.ticket);
  } catch (err) {
    const e = toMpayError(err);
    opened.record((e as { ambiguous?: boolean }).ambiguous ? 'ambiguous' : 'failed', {
      error: `credentials check: ${e.message}`,
    });
    throw err;
  } finally {
    await opened.close();
  }
  if (probe.verdict === 'accepted') {
    opened.record('failed', {
      message:
        'credentials check: the API refused the missing customer fields, so the credentials were accepted (nothing created)',
    });
    return {
      name: 'API key',
      ok: true,
      detail:
        'merchant key, site id and API key accepted by withdraw initiate, which refused the missing customer fields (nothing created)',
    };
  }
  if (probe.verdict === 'rejected') {
    opened.record('failed', { error: `credentials check: ${probe.error.message}` });
    return failed(
      'API key',
      probe.error,
      'The Site ID and API key are under the services settings of the dashboard; save them with `mpay login`',
    );
  }
  return created(probe, opened, journal);
}

function openCheck(name: string, currencies: MerchantCurrency[], key: 'deposite' | 'withdraw'): Check {
  const open = currencies.filter((c) => c[key]).map((c) => c.code);
  return {
    name,
    ok: open.length > 0,
    detail: `enabled for ${open.join(', ') || 'no currency'}${off(currencies, key)}`,
    kind: 'precondition',
  };
}

function gatewaysCheck(type: 'collection' | 'disbursement', currencies: MerchantCurrency[]): Check {
  const per = currencies
    .map(
      (c) =>
        [
          c.code,
          (c.getway_configuration ?? []).filter((g) => g.type === type && (g.status ?? 'active') === 'active')
            .length,
        ] as const,
    )
    .filter(([, n]) => n > 0);
  return {
    name: `${type} gateways`,
    ok: per.length > 0,
    detail: per.length ? per.map(([code, n]) => `${code} ${n}`).join(', ') : 'none active',
    kind: 'precondition',
  };
}

/**
 * The server created a withdrawal from a request of credentials only: a failed check that says so, with
 * the hash token, and a record in the journal so that `mpay history` shows it.
 */
function created(
  probe: { payment?: InitiatedPayment; status: number },
  opened: ProbeTicket,
  journal: JournalLike,
): Check {
  const hash = probe.payment?.has_token ?? undefined;
  const reference = opened.reference;
  opened.record('ok', {
    hash_token: hash,
    status: 'initiated',
    message: `created by mpay doctor's credentials check (HTTP ${probe.status}): the server took an initiate of credentials only`,
  });
  return {
    name: 'API key',
    ok: false,
    detail: `withdraw initiate of credentials only answered HTTP ${probe.status}: the server CREATED a withdrawal (${hash ? `hash token ${shownValue(hash)}` : 'no hash token read'}, journaled as ${reference})`,
    hint: `See \`${historyShowCommand({ reference, place: journal.place })}\`; ask the provider to cancel it. This server does not validate an initiate as the API does`,
    kind: 'server',
  };
}

/** Which of the merchant's gateways get the wallet address update, and why: the list or the rule. */
function walletCheck(listed: number[] | undefined, env: string, currencies: MerchantCurrency[]): Check {
  const byId = new Map<number, Gateway>();
  for (const c of currencies)
    for (const g of c.getway_configuration ?? []) byId.set(Number(g.gateway.id), g.gateway);
  const services = currencies.map((c) => c.service);
  const needing = [...byId.values()]
    .map((g) => [g, walletReason(g, { listed, services })] as const)
    .filter(([, why]) => why !== undefined)
    .map(([g, why]) => `${g.id} ${g.name}${why === 'listed' ? '' : ` (${why})`}`);
  const unknown = (listed ?? []).filter((id) => !byId.has(id));
  return {
    name: 'wallet gateways',
    ok: true,
    detail: listed?.length
      ? `from the profile's list for ${env}: ${needing.join(', ') || 'none open'}${unknown.length ? `; not open to this merchant: ${unknown.join(', ')}` : ''}`
      : `by the built-in rule: ${needing.join(', ') || 'none'}; \`mpay config set ${env}.wallet_gateways IDS\` settles it`,
  };
}

function off(currencies: MerchantCurrency[], key: 'deposite' | 'withdraw'): string {
  const off = currencies.filter((c) => !c[key]).map((c) => c.code);
  return off.length ? `; off for ${off.join(', ')}` : '';
}
