// The deposit and withdraw flows of the spec, step by step: initiate, (wallet address update), status
// update, processed (with the one-time code on withdraw). Questions go through a Prompter; without one,
// nothing is asked and a missing value is a usage error naming its flag.
import { shownValue } from '../../common/shell-words.js';
import { keepingTrack } from '../standing.js';
import { UsageError, ValidationError } from '../../common/errors.js';
import type { GatewayConfiguration, InitiatedPayment, MerchantService } from '../../api/schemas.js';
import { stepDone, type JournalRecord, type Kind } from '../../journal/records.js';
import { fields, otpOf, phoneNumber, problem } from './inputs.js';
import { internationalPhone, loadPhoneRules } from './phones.js';
import { isCrypto, needsWalletUpdate, walletReason, type WalletContext } from './wallet-rule.js';

import {
  merchantCurrencies,
  silentReporter,
  title,
  type FlowDeps,
  type FlowInputs,
  type FlowResult,
  type Reporter,
} from '../types.js';
import { ask, flagsComplete, gather } from './gather.js';
import { repeatOfUnknown, stopIfAsked } from '../gate/journaled.js';
import { depositProcessStep, initiateStep, statusStep, walletStep, withdrawProcessStep } from './steps.js';
import { chooseGateway, givenGateway, precheckGateway } from './gateways.js';
import { historyShowCommand, resumeCommand, withdrawProcessCommand } from '../standing.js';
import { holdTransaction } from '../gate/money-gate.js';

// The flow ------------------------------------------------------------------------------------------

export async function runPaymentFlow(kind: Kind, inputs: FlowInputs, deps: FlowDeps): Promise<FlowResult> {
  const rep = deps.reporter ?? silentReporter;
  const g = await gather(kind, inputs, deps, { gateway: true });
  refuseKnownReference(g.request.customer_transaction_id, deps);
  precheckGateway(kind, g.currency, inputs, deps);
  rep.step(`Summary of the ${title(kind)}`);
  const r = g.request;
  rep.info(
    `  ${r.amount} ${r.currency_code} (${r.country_code}) ${kind === 'deposit' ? 'from' : 'to'} ${r.customer_first_name}${r.customer_last_name ? ` ${r.customer_last_name}` : ''}, ${r.customer_phone}, ${r.customer_email}`,
  );
  // where the money goes, before anything is sent: two profiles may both be "sandbox", on two servers
  const where = deps.place ? `, ${deps.place.server} (profile ${deps.place.profile})` : '';
  rep.info(`  reference ${r.customer_transaction_id}; ${deps.env} environment${where}`);
  const gateway = givenGateway(kind, g.currency, inputs.gateway);
  rep.info(gateway ? `  gateway ${gateway}` : '  gateway: chosen once initiate lists those open to it');
  await deps.gate.pass({ what: `this ${title(kind)} of ${r.amount} ${r.currency_code}` }, deps.client.dryRun);
  // The transaction's lock, from its first step to its last: each step's ticket from the gate only checks it (a
  // dry run sends nothing, and takes none).
  const release = deps.client.dryRun
    ? async () => {}
    : await holdTransaction(r.customer_transaction_id, kind, deps.place, deps.journal);
  try {
    rep.step('Initiate');
    const initiated = await initiateStep(kind, r, deps, inputs.gateway);
    rep.info(`  hash token ${shownValue(initiated.has_token)}`);
    const record: JournalRecord = deps.journal.find(r.customer_transaction_id)!;
    // The rest of the flow (the payment phone's dial code) uses the currencies just read, not a second GET.
    const flowDeps = { ...deps, currencies: deps.currencies ?? g.currencies };
    return await continueFlow(record, initiated.gateway_configuration, inputs, flowDeps, { initiated });
  } finally {
    await release();
  }
}

/**
 * A new flow (or `mpay api`'s initiate) with a reference the journal already holds would send an initiate
 * the API refuses as a duplicate, and write its amount and customer into that transaction's record:
 * refused here, before anything is sent, with the command that continues the transaction instead.
 * `named` is how the caller's user gave the reference.
 */
export function refuseKnownReference(
  reference: string,
  deps: Pick<FlowDeps, 'journal' | 'place'>,
  named: { noun: string; give: string } = { noun: 'reference', give: '--reference' },
): void {
  const known = deps.journal.find(reference);
  if (!known) return;
  throw new UsageError(
    `The ${named.noun} ${reference} is already in the journal: a ${known.kind} started ${known.created_at.slice(0, 19).replace('T', ' ')} (status ${known.status ?? 'unknown'}); nothing was sent`,
    {
      hint: stepDone(known, 'processed')
        ? `Give a new ${named.give}; \`${historyShowCommand(known, deps.place)}\` shows that one`
        : `Continue it with \`${resumeCommand(known, deps.place)}\`, or give a new ${named.give}`,
    },
  );
}

/** `mpay deposit initiate` / `mpay withdraw initiate`: the inputs, the summary, initiate, nothing more. */
export async function initiateOnly(
  kind: Kind,
  inputs: FlowInputs,
  deps: FlowDeps,
): Promise<InitiatedPayment> {
  const g = await gather(kind, inputs, deps);
  refuseKnownReference(g.request.customer_transaction_id, deps);
  await deps.gate.pass(
    { what: `this ${title(kind)} initiate of ${g.request.amount} ${g.request.currency_code}` },
    deps.client.dryRun,
  );
  return initiateStep(kind, g.request, deps);
}

/** `mpay deposit/withdraw initiate`: the initiate step alone, and how the flow picks it up from there. */
export async function initiateStage(kind: Kind, inputs: FlowInputs, deps: FlowDeps): Promise<FlowResult> {
  const p = await initiateOnly(kind, inputs, deps);
  const reference = p.customer_transaction_id ?? '';
  return {
    kind,
    reference,
    hash_token: p.has_token,
    status: 'initiated',
    initiated: p,
    // mpay journaled it: the flow picks it up at the gateway.
    resume: resumeCommand({ kind, reference, place: deps.place }),
  };
}

/** The steps after initiate, skipping those the journal says are done. */
export async function continueFlow(
  record: JournalRecord,
  configs: GatewayConfiguration[] | undefined,
  inputs: FlowInputs,
  deps: FlowDeps,
  partial: Partial<FlowResult> = {},
  /** the merchant service of the transaction's currency, when known without an initiate answer */
  service?: MerchantService,
  /** a resume: the customer's values come from the journal, never asked again */
  resumed = false,
): Promise<FlowResult> {
  return keepingTrack(record, deps, async () => {
    const rep = deps.reporter ?? silentReporter;
    const hash = record.hash_token!;
    const result: FlowResult = {
      kind: record.kind,
      reference: record.reference,
      hash_token: hash,
      ...partial,
    };
    const walletCtx: WalletContext = {
      listed: deps.walletGateways,
      services: [partial.initiated?.merchant_service, service],
    };
    const { id: gatewayId, gateway } = await settleGateway(record, configs, inputs, deps, walletCtx);
    result.gateway = {
      id: gatewayId,
      name: gateway?.name ?? record.gateway_name ?? String(gatewayId),
      payment_method: gateway?.payment_method,
    };
    if (!deps.client.dryRun && (!stepDone(record, 'gateway') || record.gateway_id !== gatewayId)) {
      // A local step: the choice is recorded so that a resumed flow keeps it.
      deps.journal.append({
        reference: record.reference,
        kind: record.kind,
        step: 'gateway',
        outcome: 'ok',
        hash_token: hash,
        data: { gateway_id: gatewayId, gateway_name: result.gateway.name },
      });
    }

    const wallet = gateway ? needsWalletUpdate(gateway, inputs.wallet, walletCtx) : (inputs.wallet ?? false);
    if (wallet && !stepDone(record, 'wallet'))
      result.wallet = await walletStage(record, { id: gatewayId, gateway }, inputs, deps, walletCtx);

    if (!stepDone(record, 'status')) {
      stopIfAsked(deps, 'status', record.reference);
      rep.step('Status update');
      // Processed needs status initiated, so inside a flow the update keeps it and binds the gateway.
      result.status_update = await statusStep(record, hash, gatewayId, 'initiated', deps);
      rep.info(`  transaction ${result.status_update.transaction_id}: ${result.status_update.status}`);
    }

    return processStage(record, inputs, deps, result, resumed);
  });
}

/** The wallet address update, and the address the customer pays to (a QR code for a crypto gateway). */
async function walletStage(
  record: JournalRecord,
  { id, gateway }: { id: number; gateway?: GatewayConfiguration['gateway'] },
  inputs: FlowInputs,
  deps: FlowDeps,
  walletCtx: WalletContext,
): Promise<NonNullable<FlowResult['wallet']>> {
  const rep = deps.reporter ?? silentReporter;
  const why = inputs.wallet
    ? 'asked for'
    : gateway
      ? (walletReason(gateway, walletCtx) ?? 'asked for')
      : 'asked for';
  stopIfAsked(deps, 'wallet', record.reference);
  rep.step(`Wallet address update (${why})`);
  const wallet = await walletStep(record, record.hash_token!, id, deps);
  // A deposit's customer sends to the address; a withdrawal is paid out to it (the customer's own).
  const to = record.kind === 'deposit' ? 'send to' : 'paid out to';
  rep.info(
    `  ${to} ${wallet.wallet_address}${wallet.network ? ` (${wallet.code ?? ''} on ${wallet.network})` : ''}`,
  );
  await rep.address(wallet.wallet_address, gateway ? isCrypto(gateway) : false);
  return wallet;
}

/** The transaction's gateway: given, known from the journal when resuming, or chosen now. */
async function settleGateway(
  record: JournalRecord,
  configs: GatewayConfiguration[] | undefined,
  inputs: FlowInputs,
  deps: FlowDeps,
  walletCtx: WalletContext,
): Promise<{ id: number; gateway?: GatewayConfiguration['gateway'] }> {
  let gatewayId = inputs.gateway ?? record.gateway_id;
  let gateway = configs?.find((c) => Number(c.gateway.id) === gatewayId)?.gateway;
  if (configs && (!gateway || gatewayId === undefined)) {
    const chosen = await chooseGateway(configs, inputs, deps, walletCtx);
    gateway = chosen.gateway;
    gatewayId = Number(chosen.gateway.id);
  }
  if (gatewayId === undefined)
    throw new UsageError('Missing --gateway', {
      fields: { gateway_id: ['required'] },
      hint: 'The journal does not know which gateway was chosen',
    });
  return { id: gatewayId, gateway };
}

/** The dial code of the transaction's country, from the merchant's currencies (read once per run). */
/** The country whose numbering plan reads a national phone of the record (its own, else its currency's). */
async function countryOf(record: JournalRecord, deps: FlowDeps): Promise<string | undefined> {
  await loadPhoneRules();
  if (record.country) return record.country;
  if (!record.currency) return undefined;
  const list = await merchantCurrencies(deps);
  return list.find((c) => c.code === record.currency)?.country?.code ?? undefined;
}

/** The processed step (with the one-time code on withdraw), alone or as the end of a flow. */
export async function processStage(
  record: JournalRecord,
  inputs: FlowInputs,
  deps: FlowDeps,
  result: FlowResult = { kind: record.kind, reference: record.reference, hash_token: record.hash_token },
  /** a resume: the payment phone and e-mails are the journal's (or the flags'), never asked again */
  resumed = false,
): Promise<FlowResult> {
  return keepingTrack(record, deps, async () => {
    const rep = deps.reporter ?? silentReporter;
    const hash = record.hash_token!;
    stopIfAsked(deps, 'processed', record.reference);
    rep.step(record.kind === 'deposit' ? 'Deposit processed' : 'Withdraw processed');
    const customer = record.customer ?? {};
    const sentWith = record.kind === 'withdraw' && stepDone(record, 'otp') ? record.code_request : undefined;
    if (sentWith)
      return finishWithdraw(record, codeRequestOf(record, sentWith, inputs, hash), inputs, deps, result);
    // A phone given by flag is the one to use: asked only when it came from a prompt or the journal. The
    // customer's phone given by flag is sent as the flow normalized it (the journal has it, dial code and
    // all), and a payment phone given or typed nationally gets the country's dial code, as that one does.
    const given =
      inputs.phoneNumber ?? (inputs.phone !== undefined ? (customer.phone ?? inputs.phone) : undefined);
    // A withdrawal is paid out to the customer's phone, just given: not asked a second time (--phone-number
    // names another). A deposit's payer may pay from another phone, so it is asked, the customer's offered.
    const settled = flagsComplete(inputs) || resumed;
    const phoneSettled = settled || record.kind === 'withdraw';
    const asking = given === undefined && deps.prompter !== undefined && !phoneSettled;
    const national = given === undefined ? asking : !/^\s*(\+|00)/.test(given);
    const field = national ? internationalPhone(await countryOf(record, deps), phoneNumber) : phoneNumber;
    const phone = await ask(deps, field, given, 'Phone number for the payment', {
      default: customer.phone,
      settled: phoneSettled,
    });
    const receiverEmail = await ask(
      deps,
      fields.receiverEmail,
      inputs.receiverEmail,
      'Also send the confirmation to this e-mail (optional; Enter to skip)',
      { optional: true, settled },
    );
    if (record.kind === 'deposit') {
      result.transaction = await repeatOfUnknown(record, ['processed'], () =>
        depositProcessStep(record, hash, phone!, receiverEmail, deps),
      );
      return done(result, rep);
    }
    const email = (await ask(
      deps,
      fields.email,
      inputs.email ?? customer.email,
      'Customer e-mail (the one-time code goes there)',
    ))!;
    return finishWithdraw(record, { hash, phone: phone!, email, receiverEmail }, inputs, deps, result);
  });
}

/**
 * The phone and e-mails of a withdrawal whose code was requested already: those of the request, from the
 * journal (the confirmation must go with the same ones); a flag that names another is refused, not sent.
 */
function codeRequestOf(
  record: JournalRecord,
  sent: NonNullable<JournalRecord['code_request']>,
  inputs: FlowInputs,
  hash: string,
): { hash: string; phone: string; email: string; receiverEmail?: string } {
  const differs = (
    [
      ['--phone-number', inputs.phoneNumber, sent.phone_number],
      ['--email', inputs.email, sent.customer_email],
      ['--receiver-email', inputs.receiverEmail, sent.receiver_email],
    ] as const
  ).filter(([, given, was]) => given !== undefined && was !== undefined && given !== was);
  if (differs.length)
    throw new UsageError(
      `The one-time code of ${record.reference} was requested with ${differs.map(([flag, , was]) => `${flag} ${was}`).join(', ')}: the confirmation goes with the same, so ${differs.map(([flag, given]) => `${flag} ${given}`).join(', ')} is not sent`,
      { hint: 'Leave the flag out: the resume takes them from the journal' },
    );
  return {
    hash,
    phone: sent.phone_number,
    email: sent.customer_email,
    ...(sent.receiver_email ? { receiverEmail: sent.receiver_email } : {}),
  };
}

async function finishWithdraw(
  record: JournalRecord,
  req: { hash: string; phone: string; email: string; receiverEmail?: string },
  inputs: FlowInputs,
  deps: FlowDeps,
  result: FlowResult,
): Promise<FlowResult> {
  const rep = deps.reporter ?? silentReporter;
  // The code is asked for once; a resumed flow whose code was already sent goes straight to it.
  if (!stepDone(record, 'otp')) {
    const first = await repeatOfUnknown(record, ['otp', 'processed'], () =>
      withdrawProcessStep(record, req, deps),
    );
    if (!first.otpSent) {
      result.transaction = first.transaction;
      return done(result, rep);
    }
    rep.info(`  ${first.message}`);
  } else {
    rep.info(`  a one-time code was already sent to ${req.email}`);
  }
  if (inputs.otp !== undefined) {
    const otp = inputs.otp;
    const res = await repeatOfUnknown(record, ['processed'], () =>
      withdrawProcessStep(record, { ...req, otp }, deps),
    );
    if (res.otpSent) throw new UsageError('The API sent a new code instead of taking the one given');
    result.transaction = res.transaction;
    return done(result, rep);
  }
  if (!deps.prompter) {
    result.next = 'otp';
    result.status = 'initiated';
    result.resume = withdrawProcessCommand(req.hash, record.place ?? deps.place);
    const sent = `A one-time code was sent to ${req.email}. Resume with: `;
    result.message = `${sent}${result.resume}`;
    // On a terminal the line folds: the command in backticks folds only with ` \`, so it still pastes.
    rep.info(`  ${sent}\`${result.resume}\``);
    return result;
  }
  for (let attempt = 1; attempt <= 3; attempt++) {
    const otp = await deps.prompter.password({
      message: `One-time code sent to ${req.email}`,
      validate: (v) => problem(fields.otp, v) ?? true,
    });
    try {
      const res = await withdrawProcessStep(record, { ...req, otp: otpOf(otp) }, deps);
      if (res.otpSent) throw new UsageError('The API sent a new code instead of taking the one given');
      result.transaction = res.transaction;
      return done(result, rep);
    } catch (err) {
      if (!(err instanceof ValidationError && err.fields.otp) || attempt === 3) throw err;
      rep.info(
        `  wrong code (${err.fields.otp.join(' ')}); ${3 - attempt} ${3 - attempt === 1 ? 'try' : 'tries'} left`,
      );
    }
  }
  throw new UsageError('unreachable');
}

function done(result: FlowResult, rep: Reporter): FlowResult {
  const t = result.transaction!;
  result.status = t.status;
  rep.step(`Done: ${result.kind} ${t.transaction_id} is ${t.status}`);
  // What the API settled, each amount with its currency (a crypto gateway settles in its coin), and what
  // was asked, labelled apart.
  const cur = t.currency_code ?? '';
  const p = result.initiated;
  rep.info(
    `  settled ${t.amount ?? '?'} ${cur} (fee ${t.fee_amount ?? '?'} ${cur}, net ${t.net_amount ?? '?'} ${cur}) via ${t.payment_method || result.gateway?.name || 'a gateway the API did not name'}${p ? `; asked ${p.amount} ${p.currency?.code ?? ''}` : ''}`,
  );
  return result;
}
