// `mpay auth status`: where each profile keeps its secrets, and its cached tokens.
import { exitCodes, UsageError } from '../../../common/errors.js';
import { commandLine } from '../../../common/shell-words.js';
import { keyringHint, keyringNotAvailable } from '../../../api/credentials.js';
import type { Factory } from '../../../factory.js';
import type { ProfileSecrets, SecretsReport } from '../../../flows/login/secret-storage.js';
import { clean } from '../../../ui/output.js';
import { printResult } from '../../../ui/print.js';

export async function runAuthStatus(opts: { json?: boolean; profile?: string }, f: Factory): Promise<void> {
  const { secretsReport } = await import('../../../flows/login/secret-storage.js');
  const store = await f.store();
  const report = await secretsReport(store, f.environ, f.now());
  if (opts.profile) {
    if (!report.profiles.some((p) => p.profile === opts.profile))
      throw new UsageError(`No profile named "${opts.profile}"`, {
        hint: `Known: ${report.profiles.map((p) => p.profile).join(', ') || 'none; run `mpay login`'}`,
      });
    report.profiles = report.profiles.filter((p) => p.profile === opts.profile);
  }
  await printResult(f.io, opts.json, report, () => renderReport(report));
  const name = opts.profile ?? f.globals.profile ?? f.environ.MPAY_PROFILE ?? report.current_profile;
  const mine = report.profiles.find((p) => p.profile === name);
  const fromEnv = report.from_environment.includes('MPAY_MERCHANT_KEY');
  // Like doctor: the report is the output (one JSON document for a script), and the exit code says
  // whether the profile in effect can authenticate.
  if (!fromEnv && (!mine || mine.secrets === 'none' || mine.problem)) {
    // A keyring that cannot be used is a local problem (exit 9), as for every command that needs the secrets.
    f.io.exitCode = mine?.problem && !report.keyring.usable ? exitCodes.local : exitCodes.auth;
    const login = `\`${commandLine(['mpay', 'login', ...(name === 'default' ? [] : ['--profile', name])])}\``;
    // A keyring that does not answer now may answer later: logging in again would move the secrets to
    // the file, so that is offered only when the keyring answered and had nothing.
    if (!opts.json)
      f.io.warn(
        mine?.problem
          ? report.keyring.usable
            ? `the credentials of profile ${name} cannot be read: ${mine.problem}`
            : `${keyringNotAvailable(report.keyring.problem ?? 'it did not open')}; the credentials of profile ${name} are kept there. ${keyringHint}, or run ${login} to store them again`
          : `profile ${name} has no credentials; run ${login}`,
      );
  }
}

function renderReport(r: SecretsReport): string {
  const lines = [
    `Keyring: ${r.keyring.name}, ${r.keyring.usable ? 'works (a test entry was written, read and deleted)' : keyringNotAvailable(r.keyring.problem ?? 'it did not open')}`,
    `Config folder: ${r.config_dir}`,
  ];
  if (r.from_environment.length > 0)
    lines.push(`From the environment (never stored): ${r.from_environment.join(', ')}`);
  if (r.profiles.length === 0) lines.push('', 'No profiles yet: run `mpay login`.');
  for (const p of r.profiles) lines.push('', ...renderProfile(p, r));
  return clean(lines.join('\n'));
}

function renderProfile(p: ProfileSecrets, r: SecretsReport): string[] {
  const out = [`${p.profile} (${p.current ? 'current, ' : ''}${p.env})`];
  const key = p.merchant_key_fingerprint ? `merchant key ${p.merchant_key_fingerprint}` : 'merchant key';
  if (p.problem) out.push(`  X ${p.secrets === 'keyring' ? `in the ${p.keyring}: ` : ''}${p.problem}`);
  else if (p.secrets === 'keyring') out.push(`  ok ${key} and API key in the ${p.keyring}`);
  else if (p.secrets === 'file') {
    out.push(`  !  ${key} and API key in ${r.config_dir}/config.json (mode 0600)`);
    if (p.move_command) out.push(`     move them into the ${r.keyring.name}: ${p.move_command}`);
  } else out.push('  -  no credentials stored');
  if (p.site_id) out.push(`  site id ${p.site_id}`);
  for (const t of p.tokens)
    out.push(
      `  token for ${t.env} ${t.base_url}, key ${t.merchant_key_fingerprint}, made ${age(t.age_seconds)} ago (${t.stored === 'keyring' ? 'keyring' : 'tokens.json'})`,
    );
  return out;
}

function age(s: number): string {
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} d`;
}
