// The request fields that name a transaction: its reference, and the hash token the API gave it. The
// endpoint table's `names` are each one of these (test/endpoints.test.ts), and the journal reads this list
// to keep them whole; it stands
// apart from the table so that the journal loads none of the table's schemas (zod) with it: `mpay history`
// started 29 ms later when the journal imported the table.
export const transactionFields = ['customer_transaction_id', 'hash_token'] as const;
