// A batch's --out file lists its results in the file's row order, as a person comparing it with the
// input expects, though rows end in any order: a result waits for those of the rows started before it (at
// most the rows in flight), then goes out.

/** Results put back in the order their rows started. */
export class RowOrder<T extends { row: number }> {
  private readonly started: number[] = [];
  private readonly waiting = new Map<number, T>();

  /** `emit` is handed each result once every row started before it has ended. */
  constructor(private readonly emit: (result: T) => void) {}

  start(row: number): void {
    this.started.push(row);
  }

  end(result: T): void {
    this.waiting.set(result.row, result);
    while (this.started.length > 0 && this.waiting.has(this.started[0]!)) {
      this.emit(this.waiting.get(this.started[0]!)!);
      this.waiting.delete(this.started.shift()!);
    }
  }

  /** What an interruption left waiting (rows in flight when it stopped), in row order too. */
  flush(): void {
    for (const row of [...this.waiting.keys()].sort((a, b) => a - b)) this.emit(this.waiting.get(row)!);
    this.waiting.clear();
  }
}
