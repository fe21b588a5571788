// How many rows of a batch run at a time (--concurrency), a module of its own that imports nothing: the
// flags (commands/base/flags.ts), loaded by every command, read it without loading the batch.

/**
 * Rows in flight (--concurrency), which the progress shows: 4 by default; at most enough to fill a rate
 * limit of a few hundred calls a second at a tenth of a second each. Fewer while the server rate-limits.
 */
export const defaultConcurrency = 4;
export const maxConcurrency = 64;
