// The invoice-approval template's tools (a Keel tool pack: every keel command run in this
// directory loads it). Plain JavaScript that imports nothing of Keel's. The handlers stand in for
// your ERP and bank: match_purchase_order reads a small table of purchase orders below, and each
// effect is appended, once per idempotency key, to .keel/outbox.jsonl beside this file. Replace
// them with calls to your systems; keep each `simulate`: it is what TESTING and SHADOW runs see
// instead of an effect (docs/lifecycle.md).
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const OUTBOX = fileURLToPath(new URL('./.keel/outbox.jsonl', import.meta.url));

/** Records an effect once per idempotency key and returns its result (the first one, on a retry). */
function act(tool, args, key, result) {
  mkdirSync(dirname(OUTBOX), { recursive: true });
  const lines = existsSync(OUTBOX) ? readFileSync(OUTBOX, 'utf8').split('\n').filter(Boolean) : [];
  const done = lines.map((l) => JSON.parse(l)).find((e) => e.key === key);
  if (done) return done.result;
  appendFileSync(OUTBOX, `${JSON.stringify({ tool, key, args, result })}\n`);
  return result;
}

const suffix = (key) => key.slice(-12);

/** Open purchase orders: vendor and the amount approved to be invoiced. */
const PURCHASE_ORDERS = {
  'PO-5001': { vendor_id: 'V-100', approved_usd: 1200 },
  'PO-5002': { vendor_id: 'V-200', approved_usd: 15000 },
};

/** A three-way match, reduced to two: the PO exists, names this vendor, and covers the amount. */
const match = (args) => {
  const po = PURCHASE_ORDERS[args.po_number];
  const matched = po !== undefined && po.vendor_id === args.vendor_id && args.amount_usd <= po.approved_usd;
  return { po_number: args.po_number, matched, approved_usd: po?.approved_usd ?? 0 };
};

const vendorId = { type: 'string', pattern: '^V-[0-9]+$', description: 'Vendor id, e.g. V-100' };
const invoiceId = { type: 'string', pattern: '^INV-[0-9]+$', description: 'Invoice id, e.g. INV-7001' };
const money = { type: 'number', exclusiveMinimum: 0, multipleOf: 0.01 };

export default [
  {
    name: 'match_purchase_order',
    description: 'Reads a purchase order and says whether an invoice matches it (vendor and amount).',
    args: {
      type: 'object',
      required: ['po_number', 'vendor_id', 'amount_usd'],
      properties: {
        po_number: { type: 'string', pattern: '^PO-[0-9]+$' },
        vendor_id: vendorId,
        amount_usd: money,
      },
      additionalProperties: false,
    },
    destructive: false,
    effect: 'read',
    idempotent: true,
    scopes: ['erp.purchase-orders.read'],
    handler: match,
    simulate: match,
  },
  {
    name: 'schedule_payment',
    description:
      'Schedules a bank payment of an invoice. Only a matched invoice is accepted. Moves money: destructive, costs the amount.',
    args: {
      type: 'object',
      required: ['invoice_id', 'vendor_id', 'amount_usd', 'po_matched'],
      properties: {
        invoice_id: invoiceId,
        vendor_id: vendorId,
        amount_usd: money,
        po_matched: { const: true },
      },
      additionalProperties: false,
    },
    destructive: true,
    effect: 'external',
    idempotent: true,
    scopes: ['bank.payments.schedule'],
    cost: { fromArg: 'amount_usd' },
    handler: (args, ctx) =>
      act('schedule_payment', args, ctx.idempotencyKey, {
        payment_id: `pay_${suffix(ctx.idempotencyKey)}`,
        amount_usd: args.amount_usd,
      }),
    simulate: (args, ctx) => ({
      payment_id: `pay_sim_${suffix(ctx.idempotencyKey)}`,
      amount_usd: args.amount_usd,
    }),
  },
  {
    name: 'notify_vendor',
    description: "Emails the vendor's accounts-receivable contact about an invoice.",
    args: {
      type: 'object',
      required: ['vendor_id', 'invoice_id', 'text'],
      properties: {
        vendor_id: vendorId,
        invoice_id: invoiceId,
        text: { type: 'string', minLength: 1, maxLength: 2000 },
      },
      additionalProperties: false,
    },
    destructive: false,
    effect: 'external',
    idempotent: true,
    scopes: ['mail.send'],
    handler: (args, ctx) =>
      act('notify_vendor', args, ctx.idempotencyKey, { mail_id: `ml_${suffix(ctx.idempotencyKey)}` }),
    simulate: (_args, ctx) => ({ mail_id: `ml_sim_${suffix(ctx.idempotencyKey)}` }),
  },
];
