// Customers' personal data, masked for anything that leaves the merchant's machine (a support bundle): a
// name becomes its initial, a phone its last three digits, an e-mail its first letter and its domain. The
// fields are found by name wherever they are, and inside JSON kept as text (a trace's bodies). Only a
// person's fields: a bare `name` is a person's only inside a customer record, never a header's name in a
// HAR, the HAR's creator, a currency or a gateway.

const names = /^(customer_first_name|customer_last_name|first_name|last_name)$/i;
const people = /^(customer|receiver|sender|payer|payee)$/i;
const phones = /^(customer_phone|phone_number|phone)$/i;
const emails = /^(customer_email|receiver_email|email)$/i;

const maskName = (v: string) => (v ? `${[...v][0]}.` : v);
const maskPhone = (v: string) =>
  v.length > 3 ? `${'•'.repeat(Math.max(0, v.length - 3))}${v.slice(-3)}` : '•••';
const maskEmail = (v: string) => {
  const at = v.indexOf('@');
  return at > 0 ? `${v[0]}•••${v.slice(at)}` : '•••';
};

/** A deep copy with the customer's name, phone and e-mail masked; `merchant` records (services) kept. */
export function maskPersonal(value: unknown, key = '', parent = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => maskPersonal(v, '', key));
  if (value && typeof value === 'object') {
    // A merchant service record names the merchant, not a customer.
    if (/^(service|merchant_service|country|currency|gateway)$/.test(key)) return value;
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, maskPersonal(v, k, key)]),
    );
  }
  if (typeof value !== 'string') return value;
  if (names.test(key) || (key === 'name' && people.test(parent))) return maskName(value);
  if (phones.test(key)) return maskPhone(value);
  if (emails.test(key)) return maskEmail(value);
  // JSON kept as text (a HAR's request and response bodies).
  if ((key === 'text' || key === 'postData') && /^\s*[{[]/.test(value)) {
    try {
      return JSON.stringify(maskPersonal(JSON.parse(value)));
    } catch {
      return value;
    }
  }
  return value;
}
