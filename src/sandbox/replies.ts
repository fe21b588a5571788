// What the sandbox answers with: the spec's messages (typos included), its two failure shapes and the
// success envelope, and the small value helpers its rules share.
import { randomBytes } from 'node:crypto';

export interface Reply {
  status: number;
  body?: unknown;
  /** the body already serialized: replies that are the same for every request are built once */
  raw?: string;
}

// Messages are the spec's, typos included.
export const messages = {
  unauthenticated: 'UnAuthenticated User',
  validation: 'Validation failed.',
  currencyMissing: 'This currency is not exits',
  notInitiated: 'Transaction status is not initiated.',
  otpSent: 'OTP has been sent to the customer email. Please confirm the payment with the OTP.',
  serverError: 'Something went wrong. Please try again later.',
  // Laravel's throttle middleware says this with its 429; the spec names no rate limit (--rate-limit).
  tooManyRequests: 'Too Many Attempts.',
  walletFirst: 'The wallet address must be updated before the status for this gateway.',
} as const;

export const requiredMessage = (field: string) => `The ${field.replace(/_/g, ' ')} field is required.`;

export function validationFailure(errors: Record<string, string[]>): Reply {
  return { status: 422, body: { status: false, message: messages.validation, errors } };
}
export function shapeA(status: number, message: string): Reply {
  return { status, body: { success: false, message, errors: [] } };
}
export const ok = (message: string, data: unknown): Reply => ({
  status: 200,
  body: { success: true, message, data },
});
export const okRaw = (message: string, dataJson: string): Reply => ({
  status: 200,
  raw: `{"success":true,"message":${JSON.stringify(message)},"data":${dataJson}}`,
});

export const str = (v: unknown): string | undefined => {
  if (typeof v === 'string') return v.trim() === '' ? undefined : v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
};
export const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
export const today = (d: Date) => d.toISOString().slice(0, 10);
export const utcDateTime = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');
export const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const base58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** A fresh address of the right look for the rail: T… for Tron, 0x… for Ethereum, a reference otherwise. */
export function walletAddress(network: string, crypto: boolean): string {
  const bytes = randomBytes(40);
  if (network === 'TRC20') return 'T' + [...bytes.subarray(0, 33)].map((b) => base58[b % 58]).join('');
  if (crypto) return '0x' + bytes.subarray(0, 20).toString('hex');
  return `${network}-${bytes.subarray(0, 6).toString('hex').toUpperCase()}`;
}
