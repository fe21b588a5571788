// Phone numbers by each country's numbering plan, through libphonenumber-js (its "min" metadata, loaded
// when a flow first needs it): a national number is made international by the country's rules (the
// trunk 0 of Ghana, none in the North American plan), and a number the plan makes impossible is refused
// with an example of the country's own. A number given in international form (+ or 00) is checked for a
// possible length only: a plan newer than the library's must not refuse a real number.
import { importLazily } from '../../lazy-import.js';
import { fields, type Field } from './inputs.js';

type Lib = typeof import('libphonenumber-js/min');
type Examples = import('libphonenumber-js').Examples;
type CountryCode = import('libphonenumber-js').CountryCode;

let lib: Lib | undefined;
let examples: Examples | undefined;

/** Loads the numbering plans once; every function below needs them loaded. */
export async function loadPhoneRules(): Promise<void> {
  if (lib) return;
  const [l, e] = await Promise.all([
    importLazily<Lib>('libphonenumber-js/min'),
    importLazily<{ default?: Examples } & Examples>('libphonenumber-js/mobile/examples'),
  ]);
  lib = l;
  examples = (e.default ?? e) as Examples;
}

function rules(): Lib {
  if (!lib) throw new Error('phones: loadPhoneRules() was not awaited');
  return lib;
}

const known = (country: string | null | undefined): CountryCode | undefined =>
  country && rules().isSupportedCountry(country.toUpperCase())
    ? (country.toUpperCase() as CountryCode)
    : undefined;

/** A mobile number of the country, international and national (+233231234567, 023 123 4567). */
export function phoneExample(country: string | null | undefined): {
  international: string;
  national: string;
} {
  const c = known(country);
  const n = c && examples ? rules().getExampleNumber(c, examples) : undefined;
  return n
    ? { international: n.number, national: n.formatNational() }
    : { international: '+233201234567', national: '020 123 4567' };
}

/** The prompt's words for a phone of the country: its calling code and a national example. */
export function phonePrompt(label: string, country: string | null | undefined): string {
  const c = known(country);
  if (!c) return label;
  const e = phoneExample(c);
  return `${label} (+${rules().getCountryCallingCode(c)}…, or national: ${e.national})`;
}

/**
 * The customer's phone in international form, by the country's plan: 00 becomes +, a national number is
 * read by the plan (and must be a valid one of it); a number the plan makes impossible is refused with an
 * example.
 */
export function internationalPhone(country: string | null | undefined, base: Field = fields.phone): Field {
  const c = known(country);
  const e = phoneExample(c);
  const example = `e.g. ${e.international}${c ? `, or national as ${e.national}` : ''}`;
  const parsed = (v: string) => {
    const intl = v.startsWith('+') || v.startsWith('00');
    const text = v.startsWith('00') ? `+${v.slice(2)}` : v;
    const p = rules().parsePhoneNumberFromString(text, intl ? undefined : c);
    if (!p) return undefined;
    return (intl ? p.isPossible() : p.isValid()) ? p : undefined;
  };
  return {
    ...base,
    normalize: (raw) => {
      const v = base.normalize ? base.normalize(raw) : raw;
      return parsed(v)?.number ?? (v.startsWith('00') ? `+${v.slice(2)}` : v);
    },
    check: (v) => {
      const format = base.check(v);
      if (format) return format;
      if (parsed(v)) return undefined;
      if (!v.startsWith('+') && !c) return `no country code: give it in international form, ${example}`;
      return `not a possible phone number${!v.startsWith('+') && c ? ` of ${c}` : ''}: ${example}`;
    },
  };
}
