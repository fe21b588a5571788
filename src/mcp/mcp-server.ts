// `mpay mcp`: a Model Context Protocol server on stdio (the official SDK's Server and stdio transport), its
// tools from mcp/tools.ts (made from the endpoint table and the flows). Every money tool passes the run's
// tickets through a gate of its own call
// (flows/gate/money-gate.ts): journal first, the transaction's lock, live decided by the server. On a live server
// the gate's question goes to the person through MCP elicitation (mcp/ask.ts), and only an accept sends; a client that
// cannot elicit gets `confirmation_required`; --yes is not read here. stdout carries JSON-RPC alone, every
// message scrubbed of the run's secrets on its way out; logs go to stderr. End of input or a first signal
// ends the server as the CLI's first Ctrl-C does: the request in flight finishes and is journaled, no step
// starts after it, stderr names each transaction in flight and how to continue it at once, and each call is
// answered (a call cut off with what was sent: mcp/ending.ts); a call that comes after a signal is refused;
// a signal after the end of input is the same ending; a second signal names what was left in flight.
// The wire (mcp/stdio.ts) answers a line that is not JSON-RPC with the protocol's error, and scrubs.
import * as z from 'zod/mini';
import { CancelledError, UsageError } from '../common/errors.js';
import { nearest } from '../common/nearest.js';
import type { Factory } from '../factory.js';
import type { Prompter } from '../flows/prompter.js';
import { silentReporter, type FlowDeps } from '../flows/types.js';
import type { JournalLike } from '../journal/journal.js';
import type { JournalEvent } from '../journal/records.js';
import { historyShowCommand } from '../flows/standing.js';
import { importLazily } from '../lazy-import.js';
import { ConfirmationRequired, badArguments, forTools, toolError } from './tool-errors.js';
import { argumentOf } from './arguments.js';
import { askerOf, moveLine } from './ask.js';
import { endedError, inFlightLine } from './ending.js';
import { connectStdio } from './stdio.js';
import { annotationsOf, offered, type Tool, type ToolCall } from './tools.js';

type Sdk = typeof import('@modelcontextprotocol/sdk/server/index.js');
type Stdio = typeof import('@modelcontextprotocol/sdk/server/stdio.js');
type Types = typeof import('@modelcontextprotocol/sdk/types.js');

/** The mark every journal line of a call through `mpay mcp` carries (data.via), and history shows. */
export const via = 'mpay mcp';

export interface McpOptions {
  /** the read tools alone, and doctor without its API-key check */
  readOnly?: boolean;
  version: string;
}

/** A journal whose every line says it came through `mpay mcp` (data.via); the rest is the journal's own. */
export function markedJournal<J extends JournalLike>(
  journal: J,
  /** told of each line written (the server keeps, for each call in flight, its last) */
  written?: (event: JournalEvent) => void,
): J {
  const marked = Object.create(journal) as J;
  marked.append = (event: Omit<JournalEvent, 'at' | 'place'>) => {
    const full = journal.append({ ...event, data: { ...event.data, via } });
    written?.(full);
    return full;
  };
  return marked;
}

export async function serveMcp(f: Factory, opts: McpOptions): Promise<void> {
  const { Server } = await importLazily<Sdk>('@modelcontextprotocol/sdk/server/index.js');
  const { StdioServerTransport } = await importLazily<Stdio>('@modelcontextprotocol/sdk/server/stdio.js');
  const { ListToolsRequestSchema, CallToolRequestSchema, ElicitResultSchema, JSONRPCMessageSchema } =
    await importLazily<Types>('@modelcontextprotocol/sdk/types.js');
  const io = f.io;
  const secrets = f.secrets;
  const log = (line: string) => io.note(`mpay mcp: ${secrets.scrub(line)}`);
  const readOnly = Boolean(opts.readOnly);
  const list = offered(readOnly);
  const names = { ...argumentOf };

  const server = new Server(
    { name: 'mpay', title: 'mpay: merchant payments', version: opts.version },
    {
      capabilities: { tools: {} },
      instructions: `mpay's tools for the merchant payments API${readOnly ? ', read-only: no tool moves money' : ''}. A tool whose description starts with MOVES MONEY is journaled before it is sent and, on a live server, sent only after the person accepts the question the client shows.`,
    },
  );

  // End of input: no answer can come to an elicitation any more.
  const inputEnded = new AbortController();
  // The ending (end of input or a signal), as the CLI's first Ctrl-C: the request in flight finishes and is
  // journaled, and no step starts after it (the flows' deps.stop).
  const stopping = new AbortController();
  const asker = askerOf(server, ElicitResultSchema, inputEnded.signal, secrets, log);

  // The flow's dependencies: made once, at the first call that needs them (a missing profile is then that
  // call's error, not the server's); each call gets its own gate and the journal that marks its lines.
  let base: Promise<FlowDeps> | undefined;
  const baseDeps = () => (base ??= f.flowDeps({ command: 'mpay' }));

  // What ended the server (a signal's name, or the end of input).
  let ending: string | undefined;
  // The requests that came after a signal: none of them runs (after the end of input, none can come).
  const late = new Set<string | number>();
  // The calls in flight, each with the last journal line it wrote: what a second signal leaves behind.
  const inFlight = new Set<{ tool: string; last?: JournalEvent }>();

  async function callOf(
    tool: Tool,
    args: Record<string, unknown>,
    entry: { last?: JournalEvent },
  ): Promise<ToolCall> {
    const ctx = await f.context();
    // the person could not be asked (the gate's question found no elicitation): doctor says so
    let unasked = false;
    const ask = (detail: string): Prompter => {
      const p = asker.confirmer(detail);
      return {
        ...p,
        confirm: (o) =>
          p.confirm(o).catch((err: unknown) => {
            if (err instanceof ConfirmationRequired) unasked = true;
            throw err;
          }),
      };
    };
    const deps = async (): Promise<FlowDeps> => {
      const b = await baseDeps();
      const journal: JournalLike = markedJournal(b.journal, (e) => (entry.last = e));
      const record =
        typeof args.key === 'string'
          ? (() => {
              try {
                return journal.find(args.key as string);
              } catch {
                return undefined;
              }
            })()
          : undefined;
      return {
        ...b,
        journal,
        // nothing is asked of a person but the live question and the code
        prompter: undefined,
        reporter: silentReporter,
        // one question a call: this call's own gate, --yes not read
        gate: await f.gateFor(ctx.baseUrl, ctx.env, ask(moveLine(tool, args, record)), false),
        // at the ending, the request in flight finishes and is journaled; no step starts after it
        stop: stopping.signal,
      };
    };
    return {
      deps,
      now: f.now,
      askCode: (email) => asker.askCode(email),
      async doctor(checkApiKey) {
        const { runChecks } = await import('../flows/doctor/doctor.js');
        const d = await deps();
        const checks = await runChecks(ctx, d.client, () => {}, f.environ, d.journal, {
          gate: d.gate,
          explicit: checkApiKey,
          ...(readOnly
            ? { skip: 'mpay mcp --read-only sends no money request, and the check is a withdraw initiate' }
            : {}),
        });
        const hint = new ConfirmationRequired().hint;
        return {
          ok: checks.every((c) => c.ok),
          // the flow's hint for a refused live question names --yes, which has no effect here
          // a command a check names is said as the tool that does its job (or kept whole, as it runs)
          checks: checks.map(({ kind: _k, ...c }) => ({
            ...c,
            ...(c.detail !== undefined ? { detail: forTools(c.detail, names) } : {}),
            ...(c.name === 'API key' && !c.ok && unasked
              ? { hint }
              : c.hint !== undefined
                ? { hint: forTools(c.hint, names) }
                : {}),
          })),
        };
      },
    };
  }

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: list.map((t) => {
      const { $schema: _s, ...inputSchema } = z.toJSONSchema(t.input, { io: 'input' }) as Record<
        string,
        unknown
      >;
      return {
        name: t.name,
        title: t.title,
        description: t.description,
        inputSchema: inputSchema as { type: 'object' },
        annotations: annotationsOf(t, readOnly),
      };
    }),
  }));

  const fail = (err: unknown) => {
    const doc = toolError(err, secrets, names);
    log(
      `tool error: ${doc.error.kind}: ${doc.error.message}${doc.error.hint ? `; hint: ${doc.error.hint}` : ''}`,
    );
    return {
      isError: true,
      content: [{ type: 'text' as const, text: JSON.stringify(doc, null, 2) }],
      structuredContent: doc as unknown as Record<string, unknown>,
    };
  };

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const name = req.params.name;
    const args = (req.params.arguments ?? {}) as Record<string, unknown>;
    const tool = list.find((t) => t.name === name);
    log(`call ${name}`);
    if (!tool) {
      const near = nearest(
        name,
        list.map((t) => t.name),
      );
      const moneyTool = readOnly && offered(false).some((t) => t.name === name);
      return fail(
        new UsageError(
          moneyTool
            ? `${name} moves money, and mpay mcp runs --read-only: nothing was sent`
            : `Unknown tool ${name}: nothing was sent`,
          {
            fields: { name: [moneyTool ? 'not offered with --read-only' : 'unknown tool'] },
            hint: near.length
              ? `Did you mean ${near.join(' or ')}?`
              : `tools/list names the ${list.length} tools`,
          },
        ),
      );
    }
    // a code given as an argument is a secret of the run from now on, whatever happens to the call
    if (typeof args.otp === 'string') secrets.register(args.otp.trim());
    // the server is ending: the calls in flight finish, and no new one starts (a read neither)
    if (late.has(extra.requestId))
      return fail(
        new CancelledError(
          `The server is ending (${String(io.interrupts.signal.reason)}): ${name} was not run, and nothing was sent`,
          {
            hint: 'Start mpay mcp again (the client restarts it) and call the tool again',
          },
        ),
      );
    const parsed = tool.input.safeParse(args);
    if (!parsed.success) return fail(badArguments(name, parsed.error.issues, args));
    const entry: { tool: string; last?: JournalEvent } = { tool: name };
    inFlight.add(entry);
    try {
      const value = secrets.value(
        await tool.run(parsed.data as Record<string, unknown>, await callOf(tool, args, entry)),
      );
      // structuredContent is an object: a list comes under the tool's name, its text as the command's --json
      const structured = Array.isArray(value) ? { [name]: value } : (value as Record<string, unknown>);
      log(`${name}: done`);
      return {
        content: [{ type: 'text' as const, text: JSON.stringify(value, null, 2) }],
        structuredContent: structured,
      };
    } catch (err) {
      // cut off by the ending: said from the journal (what was sent, how to continue), not as nothing sent
      if (stopping.signal.aborted && err instanceof CancelledError) {
        const last = entry.last;
        let record;
        try {
          record = last ? (await baseDeps()).journal.find(last.reference) : undefined;
        } catch {
          record = undefined;
        }
        return fail(endedError(String(stopping.signal.reason), name, last, record));
      }
      return fail(err);
    } finally {
      inFlight.delete(entry);
    }
  });

  // Where money would go, read before anything is served: a profile that does not exist fails here, with
  // its own error and exit code, rather than at every call.
  const ctx = await f.context();
  // A command run by hand with a profile that is not stored (and no stored profile at all) fails at its
  // first request; a server would start and fail every call: it fails here, unless the environment brings
  // the credentials (a script's merchant under a name of its own).
  const named = f.globals.profile ?? f.environ.MPAY_PROFILE;
  if (named !== undefined && !ctx.store.profile(ctx.profileName) && !f.environ.MPAY_MERCHANT_KEY) {
    const { unknownProfile } = await import('../config/context.js');
    throw unknownProfile(ctx.profileName, Object.keys(ctx.store.profiles()).sort());
  }
  const verdict = (await f.gateFor(ctx.baseUrl, ctx.env, undefined, false)).server;

  const wire = await connectStdio(server, {
    io,
    scrub: (s) => secrets.scrub(s),
    log,
    sdk: { StdioServerTransport, JSONRPCMessageSchema },
    // a request that comes after a signal is answered, but not run
    received: (id) => void (io.interrupts.signal.aborted && late.add(id)),
  });
  // The first line: the config folder, and the profile as it is (a name that no stored profile has is not
  // said as if it were one: a client starts mpay with few variables, and may not be where the person thinks).
  const stored = ctx.store.profile(ctx.profileName) !== undefined;
  const profile = stored
    ? `profile ${ctx.profileName}`
    : f.environ.MPAY_MERCHANT_KEY
      ? `profile ${ctx.profileName} not stored (credentials from the environment)`
      : `no profile is stored there (\`mpay login --profile ${ctx.profileName}\` stores one; MPAY_CONFIG_DIR chooses the folder)`;
  log(
    `serving ${list.length} tools on stdio${readOnly ? ' (read-only)' : ''}: config folder ${ctx.store.dir}, ${profile}, environment ${ctx.env}, server ${ctx.baseUrl}${verdict.live ? ` (LIVE: ${verdict.why}${readOnly ? '' : '; each money call asks the person first'})` : ''}; stdout is JSON-RPC only`,
  );

  // A second signal ends the run at once: what each call in flight had sent is said, and where to look.
  const leftBehind = () => {
    const refs = [...inFlight].map((c) => c.last).filter((e): e is JournalEvent => e !== undefined);
    if (refs.length === 0) {
      log(
        `stopped at a second signal; ${inFlight.size ? 'no call in flight had sent a request' : 'no call was in flight'}`,
      );
      return;
    }
    for (const last of refs)
      log(
        `stopped at a second signal while ${last.outcome === 'sent' ? `the ${last.step} request of ${last.reference} was in flight: it may have been applied` : `${last.reference} was between steps (its last: ${last.step}, ${last.outcome})`}; \`${historyShowCommand(last)}\` tells where it stands`,
      );
  };

  await io.interrupts.graceful(async () => {
    ending = await new Promise<string>((resolve) => {
      io.stdin.once('end', () => resolve('end of input'));
      io.stdin.once('close', () => resolve('end of input'));
      const { signal } = io.interrupts;
      if (signal.aborted) resolve(String(signal.reason));
      else signal.addEventListener('abort', () => resolve(String(signal.reason)), { once: true });
    });
    log(
      `${ending}: finishing the ${inFlight.size} call${inFlight.size === 1 ? '' : 's'} in flight (no step starts after the request in flight); a new call is refused`,
    );
    // at once, so that even a process killed later leaves the person a line naming each transaction
    for (const c of inFlight) log(inFlightLine(c.tool, c.last));
    stopping.abort(ending);
    inputEnded.abort();
    // a signal after the end of input (a client's close(): end of input, then SIGTERM) is the same ending
    if (!io.interrupts.signal.aborted)
      io.interrupts.signal.addEventListener(
        'abort',
        () => {
          log(
            `${String(io.interrupts.signal.reason)} after the ${ending}: the same ending; ${inFlight.size} call${inFlight.size === 1 ? '' : 's'} in flight`,
          );
          for (const c of inFlight) log(inFlightLine(c.tool, c.last));
        },
        { once: true },
      );
    await wire.answered();
    await server.close();
    // stdin, open still after a signal, no longer read: nothing keeps the process
    wire.close();
  }, leftBehind);
  io.exitCode = 0;
}
