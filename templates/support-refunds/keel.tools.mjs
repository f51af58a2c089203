// The support-refunds template's tools (a Keel tool pack: every keel command run in this directory
// loads it). Plain JavaScript that imports nothing of Keel's. The handlers stand in for your
// systems: lookup_order reads a small order table below, and each effect is appended, once per
// idempotency key, to .keel/outbox.jsonl beside this file. Replace them with calls to your order
// system, mailer, payment provider and helpdesk; keep each `simulate`: it is what TESTING and SHADOW runs
// see instead of an effect (docs/lifecycle.md).
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

const ORDERS = {
  'A-1001': { customer_name: 'Ada', total_usd: 30, status: 'delivered' },
  'A-1002': { customer_name: 'Grace', total_usd: 120, status: 'delivered' },
  'A-1003': { customer_name: 'Linus', total_usd: 45, status: 'lost in transit' },
};

const lookup = (args) => {
  const order = ORDERS[args.order_id];
  return order
    ? { order_id: args.order_id, found: true, ...order }
    : { order_id: args.order_id, found: false, customer_name: 'there', total_usd: 0, status: 'unknown' };
};

const orderId = { type: 'string', pattern: '^A-[0-9]{4}$', description: 'Order id, e.g. A-1001' };
const ticketId = { type: 'string', pattern: '^T-[0-9]+$', description: 'Helpdesk ticket id, e.g. T-2001' };

export default [
  {
    name: 'lookup_order',
    description: 'Reads an order: customer name, total paid and delivery status.',
    args: {
      type: 'object',
      required: ['order_id'],
      properties: { order_id: orderId },
      additionalProperties: false,
    },
    result: {
      type: 'object',
      required: ['order_id', 'customer_name', 'total_usd'],
      properties: { customer_name: { type: 'string' }, total_usd: { type: 'number' } },
    },
    destructive: false,
    effect: 'read',
    idempotent: true,
    scopes: ['orders.read'],
    handler: lookup,
    simulate: lookup,
  },
  {
    name: 'send_reply',
    description: 'Sends a reply to the customer on a helpdesk ticket.',
    args: {
      type: 'object',
      required: ['ticket_id', 'body'],
      properties: { ticket_id: ticketId, body: { type: 'string', minLength: 1, maxLength: 4000 } },
      additionalProperties: false,
    },
    destructive: false,
    effect: 'external',
    idempotent: true,
    scopes: ['helpdesk.replies.send'],
    handler: (args, ctx) =>
      act('send_reply', args, ctx.idempotencyKey, {
        reply_id: `rp_${suffix(ctx.idempotencyKey)}`,
        ticket_id: args.ticket_id,
      }),
    simulate: (args, ctx) => ({
      reply_id: `rp_sim_${suffix(ctx.idempotencyKey)}`,
      ticket_id: args.ticket_id,
    }),
  },
  {
    name: 'issue_refund',
    description:
      'Refunds money to the card an order was paid with. Moves money: destructive, costs the amount.',
    args: {
      type: 'object',
      required: ['order_id', 'amount_usd'],
      properties: {
        order_id: orderId,
        amount_usd: { type: 'number', exclusiveMinimum: 0, multipleOf: 0.01 },
      },
      additionalProperties: false,
    },
    destructive: true,
    effect: 'external',
    idempotent: true,
    scopes: ['payments.refund'],
    cost: { fromArg: 'amount_usd' },
    handler: (args, ctx) =>
      act('issue_refund', args, ctx.idempotencyKey, {
        refund_id: `rf_${suffix(ctx.idempotencyKey)}`,
        order_id: args.order_id,
        amount_usd: args.amount_usd,
      }),
    simulate: (args, ctx) => ({
      refund_id: `rf_sim_${suffix(ctx.idempotencyKey)}`,
      order_id: args.order_id,
      amount_usd: args.amount_usd,
    }),
  },
  {
    name: 'close_ticket',
    description: 'Closes a helpdesk ticket with a note (the customer can reopen it by replying).',
    args: {
      type: 'object',
      required: ['ticket_id', 'note'],
      properties: { ticket_id: ticketId, note: { type: 'string', minLength: 1, maxLength: 500 } },
      additionalProperties: false,
    },
    destructive: false,
    effect: 'external',
    idempotent: true,
    scopes: ['helpdesk.tickets.close'],
    handler: (args, ctx) =>
      act('close_ticket', args, ctx.idempotencyKey, { ticket_id: args.ticket_id, status: 'closed' }),
    simulate: (args) => ({ ticket_id: args.ticket_id, status: 'closed' }),
  },
];
