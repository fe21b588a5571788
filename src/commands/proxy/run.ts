// `mpay proxy --upstream URL`: a local forwarder that reports, as NDJSON, every answer of the upstream that
// departs from the API's document (proxy/conformance.ts), until Ctrl-C or SIGTERM. Each record passes the
// one scrubber (api/redact.ts) before it is written anywhere.
import { closeSync, openSync, writeSync } from 'node:fs';
import { checkBaseUrl } from '../../api/base-url.js';
import { UsageError } from '../../common/errors.js';
import { clearForOutput } from '../../common/out-file.js';
import type { Factory } from '../../factory.js';
import type { DepartureRecord, RunningProxy } from '../../proxy/forwarder.js';
import { clean } from '../../ui/output.js';
import { printJson } from '../../ui/print.js';
import { portInUseHint } from '../shared/free-port.js';

export interface ProxyOptions {
  upstream: string;
  port: number;
  host: string;
  /** --report FILE: the departures as NDJSON */
  report?: string;
  json?: boolean;
  timeout?: string;
  /** --live: the upstream is a live server, and the person knows it */
  live?: boolean;
}

export async function runProxy(opts: ProxyOptions, f: Factory): Promise<void> {
  const upstream = checkBaseUrl(opts.upstream);
  // A live upstream (config/live.ts: by the server, whatever the environment) needs --live to start, and
  // then tells mpay in every answer, so that mpay asks before each money request through it.
  const { judgeServer } = await import('../../config/live.js');
  const verdict = judgeServer(upstream.href, '', (await f.store()).profiles());
  if (verdict.live && !opts.live)
    throw new UsageError(`${upstream.origin} is a live server (${verdict.why}); nothing was started`, {
      hint: 'Pass --live to proxy it: mpay then asks before each money request sent through the proxy',
    });
  const { openApiDocument } = await import('../../sandbox/openapi.js');
  const { Conformance } = await import('../../proxy/conformance.js');
  const { startProxy } = await import('../../proxy/forwarder.js');
  const { parseTimeout } = await import('../../config/context.js');
  const conformance = await Conformance.fromDocument(openApiDocument());
  let fd: number | undefined;
  if (opts.report) {
    clearForOutput(opts.report, 'the report');
    fd = openSync(opts.report, 'wx', 0o600);
  }
  // departures by operation and field (array items folded), for the sum at the end
  const tally = new Map<string, number>();
  let proxy: RunningProxy;
  try {
    proxy = await startProxy({
      upstream,
      environ: f.environ,
      secrets: f.secrets,
      port: opts.port,
      host: opts.host,
      conformance,
      onDeparture: reportDeparture(fd, f, tally),
      onError: (line) => f.io.warn(clean(line)),
      timeoutMs: parseTimeout(opts.timeout ?? f.environ.MPAY_TIMEOUT),
      now: f.now,
      // --live is the person's word that the upstream is live, whatever the rule says of its URL
      live: verdict.live || Boolean(opts.live),
    });
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new UsageError(`Port ${opts.port} on ${opts.host} is already in use`, {
        hint: await portInUseHint(opts.host, opts.port, 'Pick another port: '),
      });
    throw err;
  }
  await announce(proxy.url, upstream, opts, f, verdict.live || Boolean(opts.live));
  // Forwards until Ctrl-C or SIGTERM (the IO's interruption), then closes and sums up; a second one ends
  // the run at once.
  await f.io.interrupts.untilInterrupted(async (reason) => {
    f.io.note(`mpay proxy: ${reason}: stopping; requests in flight finish (${reason} again to stop now)`);
    await proxy.close();
    if (fd !== undefined) closeSync(fd);
    f.io.note(
      `mpay proxy: ${proxy.stats.requests} requests forwarded, ${proxy.stats.departures} departures from the document${tally.size ? `, in ${tally.size} group${tally.size === 1 ? '' : 's'} by field:` : ''}`,
    );
    const groups = [...tally].sort((a, b) => b[1] - a[1]);
    for (const [key, n] of groups.slice(0, 10)) f.io.note(`  ${n} × ${key}`);
    if (groups.length > 10) f.io.note(`  and ${groups.length - 10} more groups (see the report)`);
  });
}

/**
 * Each departure, scrubbed: a line in --report's file (`fd`), and on stderr a line for a person on a
 * terminal, or the record itself when there is no report to hold it.
 */
function reportDeparture(
  fd: number | undefined,
  f: Factory,
  tally: Map<string, number>,
): (r: DepartureRecord) => void {
  return (r) => {
    const rec = f.secrets.value(r) as DepartureRecord;
    // counted as scrubbed: a field's name may carry a secret the upstream echoed
    const key = `${rec.method} ${rec.path} ${rec.kind}${rec.field ? ` ${rec.field}` : ''}`;
    tally.set(key, (tally.get(key) ?? 0) + rec.count);
    const line = JSON.stringify(rec);
    if (fd !== undefined) writeSync(fd, `${line}\n`);
    if (f.io.stderrIsTTY)
      f.io.note(
        `departure: ${rec.method} ${rec.path} ${rec.status} ${rec.kind}${rec.field ? ` ${rec.field}` : ''}${rec.count > 1 ? ` ×${rec.count} (e.g. ${rec.example})` : ''}: ${rec.message}`,
      );
    else if (fd === undefined) f.io.stderr.write(`${line}\n`);
  };
}

/** Where the proxy listens, what it forwards to, and where its departures go. */
async function announce(
  url: string,
  upstream: URL,
  opts: ProxyOptions,
  f: Factory,
  live: boolean,
): Promise<void> {
  const info = {
    url,
    upstream: upstream.href.replace(/\/$/, ''),
    report: opts.report ?? null,
    live,
    // where records made through it belong, and the command that moves them to the upstream
    records_belong_to: url,
    move_command: `mpay history move --from ${url} --to ${upstream.href.replace(/\/$/, '')}`,
  };
  if (opts.json) return printJson(f.io, info, 0);
  f.io.say(
    [
      `mpay proxy listening on ${url}, forwarding to ${info.upstream}`,
      `  departures from the API's document: ${opts.report ?? 'on stderr'}`,
      ...(live
        ? ['  the upstream is LIVE: mpay asks before each money request through this proxy, or needs --yes']
        : []),
      `Point mpay at it: mpay … --base-url ${url}`,
      `  transactions made through it belong to ${url} in the journal; once it is stopped, continue them at`,
      `  the upstream after \`mpay history move --from ${url} --to ${info.upstream}\``,
      'Ctrl-C stops it.',
      '',
    ].join('\n'),
  );
}
