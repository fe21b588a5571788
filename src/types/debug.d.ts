// oclif's logger uses the debug package; src/exe.ts applies a run's DEBUG to it (no @types needed).
declare module 'debug' {
  const createDebug: { enable(namespaces: string): void };
  export default createDebug;
}
