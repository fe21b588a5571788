// The one place that builds what commands depend on (docs/architecture.md): the configuration
// store, the run's context, the API client, the journal, the prompter and the reporter. Every client
// gets the same user agent, time-out, retry base and escape-cleaned --debug output; every warning about
// mpay's own files reaches the person once, through the IO object. Heavy modules load on first use.
import type { Client } from './api/client.js';
import type { Credentials, TokenStore } from './api/credentials.js';
import type { Context } from './config/context.js';
import type { ConfigStore } from './config/store.js';
import type { FlowDeps, FlowSettings, Reporter } from './flows/types.js';
import type { MoneyGate } from './flows/gate/money-gate.js';
import type { Pacer, Throttle } from './api/rate-limit.js';
import { runTickets } from './api/ticket.js';
import type { Prompter } from './flows/prompter.js';
import type { IO } from './io/io.js';
import type { Journal } from './journal/journal.js';
import type { Place } from './journal/records.js';
import { clean } from './ui/output.js';
import { Secrets } from './api/redact.js';
import { Outputs } from './common/out-file.js';

/** The global flags that shape dependencies. */
export interface GlobalOptions {
  profile?: string;
  env?: string;
  baseUrl?: string;
  timeout?: string;
  debug?: boolean;
  noInput?: boolean;
  yes?: boolean;
  /** --trace FILE (or MPAY_TRACE): a HAR of every request of the run */
  trace?: string;
}

/** What a caller may set on a client; everything else comes from the context and the global flags. */
export interface ClientRequest {
  dryRun?: boolean;
  /** another server or merchant than the context's: login before it saves, the demo's own sandbox */
  baseUrl?: string;
  credentials?: Credentials;
  tokens?: TokenStore;
  /** where --debug lines go instead of stderr (already cleaned of escape sequences) */
  debug?: (line: string) => void;
  /** `mpay api --max-size`: the largest answer read, in bytes */
  maxBodyBytes?: number;
  /** a batch's pace after a 429 (api/rate-limit.ts), handed at construction */
  pacer?: Pacer;
  /** a batch's report of each wait, in place of the terminal line */
  onThrottle?: (t: Throttle) => void;
}

/**
 * What every Factory of one run shares, a step's of `mpay run` (forIO) included: the secrets, the
 * tickets, the servers a proxy said are live, and what is made once a run (`made`), always by the run's
 * own Factory (`owner`: its IO warns, its prompter asks). Nothing here grows with the clients or steps
 * of a run: a scenario of 100,000 steps makes a client a step (docs/performance.md).
 */
interface RunShared {
  readonly owner: Factory;
  readonly secrets: Secrets;
  /**
   * The run's tickets (api/ticket.ts): their `issue` goes to the money gates the run's Factories make,
   * and only there; their `verify` to every client.
   */
  readonly tickets: ReturnType<typeof runTickets>;
  /**
   * the base URLs of the run's clients whose answers said they are an mpay proxy in front of a live
   * server: a gate asks whether its server is among them. A set of URLs, not the clients: a run that
   * kept every client it made grew by a client (its got instance, its agents' options) a step.
   */
  readonly liveUpstreams: Set<string>;
  /** the run's outputs that failed after its first request, told once as the run ends */
  readonly outputs: Outputs;
  readonly made: Map<keyof OnceARun, Promise<unknown>>;
}

/** What a run makes once, the first time any of its Factories asks. */
interface OnceARun {
  store: ConfigStore;
  context: Context;
  trace: ((x: import('./api/har.js').Exchange) => void) | undefined;
  gate: MoneyGate;
}

export class Factory {
  /** the secrets this run holds, by value: its clients register them, and whatever it shows is scrubbed of them */
  readonly secrets: Secrets;
  /** the run's shared part: this Factory's own, or, for a step of `mpay run` (forIO), the run's */
  private readonly run: RunShared;
  /**
   * the run's outputs that failed after its first request (--trace, --out, reports): told as the command
   * ends (ui/output-failures.ts), exit 15
   */
  readonly outputs: Outputs;

  /** Whether the run let a money request go through its gate (the gate issued a ticket). */
  moneySent(): boolean {
    return this.run.tickets.issuedAny();
  }

  constructor(
    readonly io: IO,
    readonly globals: GlobalOptions,
    readonly userAgent: string,
    /** the environment variables of the run (MPAY_*, proxies, DISPLAY) */
    readonly environ: NodeJS.ProcessEnv = process.env,
    /** the clock of the run: the journal's timestamps and the times commands print come from here */
    readonly now: () => Date = () => new Date(),
    /**
     * the run this Factory is a step of (forIO): what it shares (its store, context, tickets, secrets,
     * trace, gate)
     */
    run?: RunShared,
  ) {
    this.run = run ?? {
      owner: this,
      secrets: new Secrets(),
      tickets: runTickets(),
      liveUpstreams: new Set(),
      outputs: new Outputs(),
      made: new Map(),
    };
    this.secrets = this.run.secrets;
    this.outputs = this.run.outputs;
  }

  /** a step of `mpay run` (forIO): the run, not the step, ends as interrupted */
  get isStep(): boolean {
    return this.run.owner !== this;
  }

  /**
   * The same run with another IO (a step of `mpay run`, whose output is read back): one store, context,
   * tickets, secrets, trace and money gate, so that the run's one live confirmation holds for every
   * step, and every money step passes the same gate, journal and locks.
   */
  forIO(io: IO): Factory {
    return new Factory(io, this.globals, this.userAgent, this.environ, this.now, this.run);
  }

  /**
   * What the run makes once: made by the run's own Factory whichever of its Factories asks first, and the
   * same for every one after. A failure is not kept (the next call makes it again: a profile saved since).
   */
  private once<K extends keyof OnceARun>(
    what: K,
    make: (owner: Factory) => Promise<OnceARun[K]>,
  ): Promise<OnceARun[K]> {
    const { made, owner } = this.run;
    const kept = made.get(what) as Promise<OnceARun[K]> | undefined;
    if (kept) return kept;
    const making = make(owner);
    made.set(what, making);
    making.catch(() => {
      if (made.get(what) === making) made.delete(what);
    });
    return making;
  }

  store(): Promise<ConfigStore> {
    return this.once('store', async (owner) => {
      const { ConfigStore } = await import('./config/store.js');
      const store = new ConfigStore(owner.environ, (cleanup) => owner.io.interrupts.atExit(cleanup));
      for (const w of store.warnings) owner.io.warn(w);
      return store;
    });
  }

  context(): Promise<Context> {
    return this.once('context', async (owner) => {
      const { resolveContext, profileNameOf } = await import('./config/context.js');
      const inputs = {
        profile: owner.globals.profile,
        env: owner.globals.env,
        baseUrl: owner.globals.baseUrl,
        timeout: owner.globals.timeout,
      };
      const store = await owner.store();
      // A profile whose secrets are in the keyring: the keyring is opened (or found unusable) before the
      // context reads them; resolveContext notes a problem.
      await store.openSecrets(profileNameOf(inputs, owner.environ, store));
      const ctx = resolveContext(inputs, owner.environ, store);
      for (const n of ctx.notes) owner.io.warn(n);
      return ctx;
    });
  }

  async client(req: ClientRequest = {}): Promise<Client> {
    const { Client } = await import('./api/client.js');
    const { parseTimeout } = await import('./config/context.js');
    // The context is read only when the caller did not bring its own server and merchant.
    const ctx = req.baseUrl && req.credentials ? undefined : await this.context();
    const sink =
      req.debug ??
      // a step of `mpay run` (forIO): its --debug lines go to the run's stderr, not the step's
      (this.globals.debug ? (line: string) => this.run.owner.io.errLine(line) : undefined);
    const tokens = req.tokens ?? ctx!.tokens;
    const client = new Client({
      environ: this.environ,
      baseUrl: req.baseUrl ?? ctx!.baseUrl,
      credentials: req.credentials ?? ctx!.credentials,
      // A dry run writes nothing: a token it needs is kept for this process only.
      tokens: req.dryRun ? readOnlyTokens(tokens) : tokens,
      timeoutMs: ctx?.timeoutMs ?? parseTimeout(this.globals.timeout ?? this.environ.MPAY_TIMEOUT),
      debug: sink ? (line) => sink(clean(line)) : undefined,
      dryRun: req.dryRun,
      retryBaseMs: this.environ.MPAY_RETRY_BASE_MS ? Number(this.environ.MPAY_RETRY_BASE_MS) : undefined,
      rateLimit: this.environ.MPAY_RETRY_BASE_MS ? { baseMs: Number(this.environ.MPAY_RETRY_BASE_MS) } : {},
      // On a terminal each wait is shown as it starts (--debug shows it in any case).
      onThrottle:
        req.onThrottle ??
        (this.io.stderrIsTTY
          ? (t) =>
              this.io.note(
                `mpay: rate limited (HTTP ${t.status}) on ${t.method} /${t.path}: waiting ${(t.waitMs / 1000).toFixed(1)} s, then try ${t.attempt + 1} of ${t.tries}`,
              )
          : undefined),
      userAgent: this.userAgent,
      maxBodyBytes: req.maxBodyBytes,
      trace: await this.tracer(),
      verifyTicket: this.run.tickets.verify,
      pacer: req.pacer,
      secrets: this.secrets,
      onUpstreamLive: (url) => this.run.liveUpstreams.add(url.href),
    });
    return client;
  }

  /** One HAR recorder per run, shared by its clients, when --trace or MPAY_TRACE names a file. */
  private tracer(): Promise<OnceARun['trace']> {
    return this.once('trace', async (owner) => {
      const file = owner.globals.trace ?? owner.environ.MPAY_TRACE;
      if (!file) return undefined;
      const { HarRecorder } = await import('./api/har.js');
      const recorder = new HarRecorder(
        file,
        { name: 'mpay', version: owner.userAgent },
        owner.secrets,
        owner.outputs,
      );
      return (x) => recorder.record(x);
    });
  }

  /** Where this run's transactions live: the context's server and merchant, and what chose them. */
  async place(): Promise<Place> {
    const ctx = await this.context();
    const { fingerprint } = await import('./api/redact.js');
    return {
      server: ctx.baseUrl,
      merchant: ctx.credentials.merchantKey ? fingerprint(ctx.credentials.merchantKey) : 'none',
      profile: ctx.profileName,
      env: ctx.env,
    };
  }

  /**
   * The journal of the context's profile and environment (or of another folder: the demo's). A journal
   * with a place (`at`) stamps it on every line and continues only the records made there; without one it
   * reads every record (history, support).
   */
  async journal(
    where?: { dir: string; profile: string; env: string },
    scope: { at?: Place; newHere?: boolean } = {},
  ): Promise<Journal> {
    const { Journal } = await import('./journal/journal.js');
    // SQLite is loaded here, by the commands that use a journal only (docs/performance.md).
    await (await import('./journal/database.js')).loadSqlite();
    let w = where;
    if (!w) {
      const ctx = await this.context();
      w = { dir: ctx.store.dir, profile: ctx.profileName, env: ctx.env };
    }
    return new Journal(w.dir, w.profile, w.env, {
      warn: (m) => this.io.warn(m),
      // An old journal of JSON lines imported at first use: said once, on stderr.
      note: (m) => this.io.note(m),
      now: this.now,
      place: scope.at,
      newHere: scope.newHere,
      scrub: (data, keep) => this.secrets.byValue(data, keep),
    });
  }

  /** The terminal prompter, or undefined when mpay must not ask (no terminal, --no-input, CI). */
  async prompter(): Promise<Prompter | undefined> {
    if (!this.io.canPrompt(this.globals.noInput)) return undefined;
    const { InquirerPrompter } = await import('./ui/inquirer-prompter.js');
    return new InquirerPrompter(this.io);
  }

  async reporter(): Promise<Reporter> {
    const { TerminalReporter } = await import('./ui/reporter.js');
    return new TerminalReporter(this.io);
  }

  /**
   * The run's one money gate: made once, so that a confirmation given anywhere in the run (a flow's
   * summary, a batch's question) holds for every request after it. Live is the server's (config/live.ts).
   */
  gate(): Promise<MoneyGate> {
    return this.once('gate', async (owner) => {
      const ctx = await owner.context();
      return owner.gateFor(ctx.baseUrl, ctx.env, await owner.prompter());
    });
  }

  /**
   * A gate for a server: it issues the run's tickets, and the run's clients tell of a live proxy.
   * `yes`: --yes, unless the caller says otherwise (`mpay mcp`, where only the person's answer lets live
   * money through).
   */
  async gateFor(
    server: string,
    env: string,
    prompter: Prompter | undefined,
    yes = this.globals.yes,
  ): Promise<MoneyGate> {
    const { MoneyGate } = await import('./flows/gate/money-gate.js');
    const { judgeServer } = await import('./config/live.js');
    const store = await this.store();
    return new MoneyGate(judgeServer(server, env, store.profiles()), {
      yes,
      prompter,
      issue: this.run.tickets.issue,
      upstreamLive: () => [...this.run.liveUpstreams].some((href) => href.startsWith(new URL(server).origin)),
      // a reader of stdout gone waits for the step in flight to be journaled (io/io.ts)
      hold: () => this.io.interrupts.hold(),
    });
  }

  /**
   * What a flow needs at a server and merchant of the caller's (the demo's own sandbox), with a journal in
   * a folder of its own: no profile is read.
   */
  async flowDepsAt(at: {
    client: Client;
    place: Place;
    journalDir: string;
    command: string;
    prompter?: Prompter;
  }): Promise<FlowDeps> {
    const { place } = at;
    return {
      client: at.client,
      place,
      journal: await this.journal(
        { dir: at.journalDir, profile: place.profile, env: place.env },
        { at: place },
      ),
      prompter: at.prompter,
      reporter: await this.reporter(),
      env: place.env,
      gate: await this.gateFor(place.server, place.env, at.prompter),
      command: at.command,
    };
  }

  /** What a flow needs: client, journal, prompter (on a terminal only), reporter, the gate. */
  async flowDeps(opts: FlowSettings): Promise<FlowDeps> {
    const ctx = await this.context();
    const place = await this.place();
    return {
      client: await this.client({
        dryRun: opts.dryRun,
        pacer: opts.pacer,
        onThrottle: opts.onThrottle,
        tokens: opts.tokens,
      }),
      journal: await this.journal(undefined, { at: place, newHere: opts.newHere }),
      place,
      prompter: await this.prompter(),
      reporter: await this.reporter(),
      env: ctx.env,
      gate: await this.gate(),
      walletGateways: ctx.profile.walletGateways?.[ctx.env],
      force: opts.force,
      command: opts.command,
    };
  }
}

/** A token store that reads the cache but keeps new tokens in memory: --dry-run writes no file. */
function readOnlyTokens(cache: TokenStore): TokenStore {
  let token: string | undefined;
  let cleared = false;
  return {
    get: () => token ?? (cleared ? undefined : cache.get()),
    set: (t) => {
      token = t;
    },
    clear: () => {
      token = undefined;
      cleared = true;
    },
  };
}
