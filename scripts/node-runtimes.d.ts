// Types of scripts/node-runtimes.js, for the tests that import it.
export const runtimes: Record<string, string>;
export function runtimesDir(): string;
export function installRuntimes(opts?: { full?: boolean }): Record<string, string>;
export const exeRuntime: string;
