// What a scenario file is read into (scenario-file.ts reads it): its steps, their expectations and
// captures, and the place in the file of every value, for the problems found.
/** Where a value is: the file, its line and column (both from 1). */
export interface Pos {
  file: string;
  line: number;
  col: number;
}

export const posText = (p: Pos) => `${p.file}:${p.line}:${p.col}`;

/** A mistake in a scenario, at its place. */
export interface Problem {
  at: Pos;
  message: string;
}

/** A `${name}` in a value of the file, at its place. */
export interface Reference {
  name: string;
  at: Pos;
}

/** One check of a value at a JMESPath path. */
export interface ValueCheck {
  path: string;
  at: Pos;
  equals?: unknown;
  matches?: string;
  exists?: boolean;
  min?: number;
  max?: number;
}

export interface Expectation {
  /** an exit code, or an error kind (`state`) */
  exit?: number | string;
  status?: number;
  values: ValueCheck[];
}

export interface CommandStep {
  /** the command's words, as typed: `deposit initiate` */
  words: string[];
  args: unknown[];
  flags: { name: string; value: unknown; at: Pos }[];
}

export interface RequestStep {
  method: string;
  path: unknown;
  /** add merchant_key, site_id and api_key from the run's profile */
  credentials: boolean;
  body?: Record<string, unknown>;
  encoding?: 'json' | 'form';
}

export interface ScenarioStep {
  index: number;
  name: string;
  at: Pos;
  run?: CommandStep & { at: Pos };
  request?: RequestStep & { at: Pos };
  capture: { name: string; path: string; at: Pos }[];
  expect: Expectation;
  /** every `${…}` in the values this step sends or expects */
  refs: Reference[];
  /** the `${…}` in its name: variables only, substituted once before the run (the name is shown before) */
  nameRefs: Reference[];
}

export interface Scenario {
  file: string;
  name: string;
  /** the environment the file is meant for: a check against the run's */
  environment?: { value: string; at: Pos };
  /** variables the file declares: a default (a template over other variables), or null when required */
  vars: { name: string; value: unknown; at: Pos; refs: Reference[] }[];
  /** what a failed money step does to the money steps after it */
  afterMoneyFailure: 'stop' | 'continue';
  steps: ScenarioStep[];
}

/** `${name}`, and `$${` for a literal `${` */
export const referencePattern = /\$\$\{|\$\{([^}]*)\}/g;
