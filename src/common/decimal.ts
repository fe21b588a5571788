// Amounts as the decimals they are: "10" is "10.00", and a week of 0.1s adds up to what a person would
// add, not to what binary floating point makes of it. Amounts arrive as strings (a flag, a row, the API's
// answer); they are compared and added here as integers of their smallest written unit (BigInt).

interface Scaled {
  units: bigint;
  scale: number;
}

function scaled(amount: string | number): Scaled | undefined {
  const m = /^\s*(-?)(\d*)(?:\.(\d*))?\s*$/.exec(String(amount));
  if (!m || (m[2] === '' && !m[3])) return undefined;
  const frac = m[3] ?? '';
  const units = BigInt(`${m[2] || '0'}${frac}`) * (m[1] ? -1n : 1n);
  return { units, scale: frac.length };
}

const at = (s: Scaled, scale: number): bigint => s.units * 10n ** BigInt(scale - s.scale);

function format(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const frac = digits.slice(digits.length - scale).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

/** The amount written one way: no leading zeros, no trailing fractional zeros ("010.50" → "10.5"). */
export function decimalKey(amount: string | number): string {
  const s = scaled(amount);
  return s ? format(s.units, s.scale) : String(amount).trim();
}

/** The exact sum of amounts; one that is not a decimal counts as 0. */
export function sumDecimals(amounts: Iterable<string | number | undefined>): string {
  let total: Scaled = { units: 0n, scale: 0 };
  for (const a of amounts) {
    const s = a === undefined ? undefined : scaled(a);
    if (!s) continue;
    const scale = Math.max(total.scale, s.scale);
    total = { units: at(total, scale) + at(s, scale), scale };
  }
  return format(total.units, total.scale);
}

/** -1, 0 or 1 as a is less than, equal to, or more than b. */
export function compareDecimals(a: string | number, b: string | number): number {
  const x = scaled(a);
  const y = scaled(b);
  if (!x || !y) return String(a).localeCompare(String(b));
  const scale = Math.max(x.scale, y.scale);
  const d = at(x, scale) - at(y, scale);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}
