// wrap-ansi 6 (CommonJS) ships no types, and @types/wrap-ansi is not installed: what src/io/fold.ts uses.
declare module 'wrap-ansi' {
  export default function wrapAnsi(
    text: string,
    columns: number,
    options?: { hard?: boolean; trim?: boolean; wordWrap?: boolean },
  ): string;
}
