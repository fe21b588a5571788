export function seeded(seed: number): () => number;
export function writeJournal(
  file: string,
  opts: { count: number; seed?: number; start?: number; legacy?: number },
): { refs: string[]; hashes: Map<string, string>; end: number };
