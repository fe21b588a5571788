export function seeded(seed: number): () => number;
export function writeJournal(
  file: string,
  opts: {
    count: number;
    seed?: number;
    start?: number;
    legacy?: number;
    /** the place of 90% of the transactions (the rest: another server, or none) */
    place?: { server: string; merchant: string; profile: string; env: string };
  },
): { refs: string[]; hashes: Map<string, string>; end: number };
