// Before any test runs, the bundle that bin/run.js loads (dist/mpay.cjs, the oclif manifest, the V8 code
// cache) is built when it is not up to date, so that a test which spawns the CLI never runs code older
// than the sources. It is up to date when dist/bundle.key records the sha256 of these very inputs (the
// sources, the build scripts, the packages, this Node) and of the outputs as they still are. Without a
// record (npm ci's prepare bundled a fresh clone a moment ago), outputs newer than every input are taken
// as built from them, as make takes them.
//
// The rest waits for the tests that need it: the single executable (test/exe.ts, built by the first test
// file that runs it, beside the other files) and the Node 22 and 24 runtimes (scripts/node-runtimes.js,
// kept in a per-user cache folder that every clone shares).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const keyFile = join(dist, 'bundle.key');

/** The files the bundle, the manifest and the code cache are made from. */
function inputFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1)))
      if (e.isDirectory()) walk(join(dir, e.name));
      else files.push(join(dir, e.name));
  };
  walk(join(root, 'src'));
  walk(join(root, 'bin'));
  for (const f of ['bundle.js', 'bundle-config.js', 'manifest.js', 'warm-cache.js'])
    files.push(join(root, 'scripts', f));
  for (const f of ['package.json', 'package-lock.json', 'tsconfig.json', 'node_modules/.package-lock.json'])
    files.push(join(root, f));
  return files;
}

/** What the bundle step writes; the code cache is named after the bundle's hash and this Node. */
function outputFiles(): string[] {
  const bundle = join(dist, 'mpay.cjs');
  const files = [bundle, join(dist, 'keyring-child.cjs'), join(root, 'oclif.manifest.json')];
  if (!existsSync(bundle)) return files;
  const sha = createHash('sha256').update(readFileSync(bundle, 'utf8')).digest('hex').slice(0, 16);
  return [...files, join(dist, `mpay.cjs.${sha}.${process.version}-${process.arch}.v8cache`)];
}

function digest(files: string[], extra = ''): string {
  const h = createHash('sha256').update(extra);
  for (const f of files)
    h.update(`${f}\0`)
      .update(existsSync(f) ? readFileSync(f) : '(none)')
      .update('\0');
  return h.digest('hex');
}

export function bundleKey(): { inputs: string; outputs: string } {
  return {
    inputs: digest(inputFiles(), `${process.version}-${process.platform}-${process.arch}`),
    outputs: digest(outputFiles()),
  };
}

/** Whether the bundle in dist/ was built from the sources as they are. */
export function bundleUpToDate(): boolean {
  const outputs = outputFiles();
  if (outputs.length < 4 || !outputs.every((f) => existsSync(f))) return false;
  const now = bundleKey();
  if (existsSync(keyFile)) {
    let saved: { inputs?: string; outputs?: string } = {};
    try {
      saved = JSON.parse(readFileSync(keyFile, 'utf8'));
    } catch {
      return false;
    }
    return saved.inputs === now.inputs && saved.outputs === now.outputs;
  }
  const newestInput = Math.max(...inputFiles().map((f) => (existsSync(f) ? statSync(f).mtimeMs : 0)));
  const oldestOutput = Math.min(...outputs.map((f) => statSync(f).mtimeMs));
  if (oldestOutput <= newestInput) return false;
  writeFileSync(keyFile, JSON.stringify(now));
  return true;
}

export default function setup(): void {
  if (bundleUpToDate()) return;
  for (const script of ['bundle.js', 'manifest.js', 'warm-cache.js'])
    execFileSync(process.execPath, [join(root, 'scripts', script)], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  writeFileSync(keyFile, JSON.stringify(bundleKey()));
}
