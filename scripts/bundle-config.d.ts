// Types of scripts/bundle-config.js, for the tests that import it.
export const lazyPackages: string[];
export const stubGotUnused: { name: string; setup(build: unknown): void };
export const lazyListFormat: { name: string; setup(build: unknown): void };
