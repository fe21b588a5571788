// `mpay support bundle`: the archive a merchant attaches to a ticket, made file by file in a private
// temporary folder: what mpay and the machine are, the profile's settings (key fingerprints only), the
// doctor report, the journal and any traces named, customers' personal data masked unless asked otherwise,
// and a README.txt saying what is inside; then written as one .tar.gz, 0600, never through a link.
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { isSea } from 'node:sea';
import { release, tmpdir, type as osType } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { UsageError } from '../../common/errors.js';
import { clearForOutput } from '../../common/out-file.js';
import { fingerprint, type Secrets } from '../../api/redact.js';
import type { Context } from '../../config/context.js';
import type { Journal } from '../../journal/journal.js';
import { importLazily } from '../../lazy-import.js';
import type { Check } from '../doctor/doctor.js';

/** What goes into the bundle, of `mpay support bundle`'s options (commands/support/bundle/run.ts). */
export interface BundleChoices {
  out?: string;
  /** only this transaction of the journal */
  reference?: string;
  /** only journal events since: a duration, a date, an ISO time (as given: README.txt says it) */
  since?: string;
  /** HAR files written with --trace, to include */
  traces?: string[];
  includePersonalData?: boolean;
}

/** A file of the bundle: its name, its text, and what README.txt says it holds. */
export interface BundleFile {
  name: string;
  text: string;
  what: string;
}

/** Customers' personal data masked (ui/personal-data.ts), or kept as it is. */
export type Mask = (v: unknown) => unknown;

/** The profile's settings, as `mpay config list` shows them (no secret among them). */
type Settings = Record<string, string | number | null>;

/** Where the bundle's files come from: the run's context, clock, secrets, and what is read when it is due. */
export interface BundleSources {
  ctx: Context;
  userAgent: string;
  now: () => Date;
  /** the run's secrets: every file is scrubbed of them by value */
  secrets: Secrets;
  mask: Mask;
  settings: Settings;
  /** doctor's checks of the profile, run when the bundle comes to them */
  doctor: () => Promise<Check[]>;
  /** the profile's and environment's journal, every record of it */
  journal: () => Promise<Journal>;
}

/**
 * The bundle written: its path (--out, else mpay-support-<time>.tar.gz here) and its files in order.
 * `since`: --since as a time (ms).
 */
export async function writeBundle(
  opts: BundleChoices,
  since: number | undefined,
  s: BundleSources,
): Promise<{ file: string; files: BundleFile[] }> {
  const tar = await importLazily<typeof import('tar')>('tar');
  const dir = mkdtempSync(join(tmpdir(), 'mpay-bundle-'));
  const files: BundleFile[] = [];
  const add = (file: BundleFile) => {
    writeFileSync(join(dir, file.name), file.text, { mode: 0o600 });
    files.push(file);
  };
  // What the traces show to be secret (a key in a beacon, a cookie, a page) is learnt from all of them
  // first: then scrubbed by value from every file, those before a trace's and the other traces' too.
  const traces = (opts.traces ?? []).map((t) => ({ path: t, har: readTrace(t) }));
  for (const t of traces) s.secrets.learn(t.har);
  try {
    add(versionsFile(s.userAgent));
    add(profileFile(s.ctx, s.settings));
    add(doctorFile(await s.doctor()));
    add(journalFile(s.ctx, await s.journal(), s.secrets, opts, since, s.mask));
    for (const [i, t] of traces.entries()) add(traceFile(t.path, t.har, i, s.mask, s.secrets));
    add(readmeFile(s.ctx, { now: s.now(), userAgent: s.userAgent }, opts, files));
    const names = files.map((file) => file.name);
    const out = resolve(opts.out ?? `mpay-support-${s.now().toISOString().replace(/[:.]/g, '-')}.tar.gz`);
    // 0600 whatever the umask (it may hold customers' data), and never written through a link: a link
    // at --out is refused, a file there replaced by a new one made exclusively.
    clearForOutput(out, 'the bundle');
    await pipeline(
      tar.create({ gzip: true, cwd: dir, portable: true }, names),
      createWriteStream(out, { flags: 'wx', mode: 0o600 }),
    );
    return { file: out, files };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const jsonText = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

function versionsFile(userAgent: string): BundleFile {
  return {
    name: 'versions.json',
    text: jsonText({
      mpay: userAgent,
      node: process.version,
      packaging: isSea() ? 'single executable' : 'npm package',
      os: { type: osType(), release: release(), platform: process.platform, arch: process.arch },
    }),
    what: "mpay's, Node's and the operating system's versions, and whether mpay ran as the single executable",
  };
}

function profileFile(ctx: Context, settings: Settings): BundleFile {
  const fp = (s?: string) => (s ? fingerprint(s) : null);
  return {
    name: 'profile.json',
    text: jsonText({
      ...settings,
      base_url_in_effect: ctx.baseUrl,
      merchant_key_fingerprint: fp(ctx.credentials.merchantKey),
      api_key_fingerprint: fp(ctx.credentials.apiKey),
      site_id: ctx.credentials.siteId ?? null,
      credentials_from: ctx.credentialSources,
    }),
    what: 'the profile and environment in effect: settings, and key fingerprints (never the keys)',
  };
}

function doctorFile(checks: Check[]): BundleFile {
  return {
    name: 'doctor.json',
    text: jsonText({ ok: checks.every((c) => c.ok), checks }),
    what: 'the report of `mpay doctor`',
  };
}

function journalFile(
  ctx: Context,
  journal: Journal,
  secrets: Secrets,
  opts: BundleChoices,
  since: number | undefined,
  mask: Mask,
): BundleFile {
  // One transaction from the index; --since read back from the journal's end only that far.
  const events = (
    opts.reference
      ? journal.eventsOf(opts.reference)
      : since !== undefined
        ? journal.eventsSince(since)
        : journal.events()
  ).filter((e) => since === undefined || Date.parse(e.at) >= since);
  return {
    name: 'journal.ndjson',
    text: events.map((e) => JSON.stringify(mask(secrets.value(e)))).join('\n') + (events.length ? '\n' : ''),
    what: `the journal of ${ctx.profileName}/${ctx.env}${opts.reference ? ` for ${opts.reference}` : ''}${opts.since ? ` since ${opts.since}` : ''}: ${events.length} events`,
  };
}

function readTrace(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`Cannot read the trace ${path}: ${(err as Error).message}`);
  }
}

/** A HAR from anywhere (a browser's too): every secret is scrubbed before it enters the bundle. */
function traceFile(path: string, har: unknown, i: number, mask: Mask, secrets: Secrets): BundleFile {
  return {
    name: `trace-${i + 1}-${basename(path)}`,
    text: jsonText(mask(secrets.value(har))),
    what: `the trace ${path}, its secrets scrubbed by name and by value`,
  };
}

/** README.txt: what was scrubbed and masked, and each file of the bundle (`files`, made before it). */
function readmeFile(
  ctx: Context,
  made: { now: Date; userAgent: string },
  opts: BundleChoices,
  files: BundleFile[],
): BundleFile {
  return {
    name: 'README.txt',
    text: [
      'mpay support bundle',
      '',
      `Made ${made.now.toISOString()} by ${made.userAgent}, profile ${ctx.profileName}, ${ctx.env} environment.`,
      'Secrets were scrubbed from every file before it was added: by name (Authorization and',
      'Proxy-Authorization, cookies, and headers, query parameters and fields of keys, tokens, codes and',
      "passwords, at any depth) and by value: this profile's merchant key and API key, and every value the",
      "traces show under a secret's name anywhere (a header, a cookie, a query, a text/plain, urlencoded,",
      "multipart or JSON body, a page's HTML or script, base64 bodies decoded), were replaced wherever they",
      'appeared in any file, as they are and URL-, JSON-, HTML- or base64-encoded. Keys appear as sha256',
      "fingerprints. A secret under a name that says nothing, which no file shows under a secret's name,",
      'can not be recognised: read a foreign trace before you share it.',
      opts.includePersonalData
        ? "Customers' names, phones and e-mails are kept (--include-personal-data)."
        : "Customers' personal data is masked: a name as its initial, a phone as its last digits, an e-mail as its first letter and domain.",
      '',
      ...files.map(({ name, what }) => `${name}: ${what}`),
      'README.txt: this file',
      '',
    ].join('\n'),
    what: 'what is inside',
  };
}
