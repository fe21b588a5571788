// Loads a package that the bundle leaves out (inquirer, cli-table3, conf, qrcode-terminal) when a command
// first needs it. Under bin/run.js the bundle runs from a V8 code cache, and on Node 20 a script loaded
// from a code cache loses its dynamic-import callback (every import() in it throws), so the loader hands
// over an importer of its own as globalThis.__mpayImport. Anywhere else (tests, plain require) this is a
// plain import(). See docs/performance.md.
type Importer = (specifier: string) => Promise<unknown>;

export function importLazily<T>(specifier: string): Promise<T> {
  const bridge = (globalThis as { __mpayImport?: Importer }).__mpayImport;
  return (bridge ? bridge(specifier) : import(specifier)) as Promise<T>;
}
