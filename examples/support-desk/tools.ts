/**
 * The support desk's four tools, declared for review: argument schemas, effects, whether each is
 * destructive, and what each costs. `issue_refund` costs the amount it refunds, so a workflow's
 * spend cap bounds the money it can move. Each also declares `simulate`: what it would return,
 * computed from its arguments alone, so TESTING and SHADOW runs of the desk's workflows see
 * plausible results while the helpdesk is never touched (docs/lifecycle.md).
 */
import { type ToolDefinition, withDeltas } from '../../src/ports/index.ts';
import type { Helpdesk } from './helpdesk.ts';

const ticketId = { type: 'string', pattern: '^T-[0-9]+$', description: 'Helpdesk ticket id, e.g. T-1001' };

export function supportDeskTools(desk: Helpdesk): ToolDefinition[] {
  return [
    {
      name: 'draft_reply',
      description: 'Adds a reply draft to a ticket.',
      args: {
        type: 'object',
        required: ['ticket_id', 'body'],
        properties: { ticket_id: ticketId, body: { type: 'string', minLength: 1, maxLength: 4000 } },
        additionalProperties: false,
      },
      destructive: false,
      effect: 'write',
      idempotent: true,
      scopes: ['helpdesk.replies.write'],
      handler: (args, ctx) => {
        desk.recordCall('draft_reply', ctx.idempotencyKey);
        return desk.addReply(args.ticket_id as string, args.body as string, ctx.idempotencyKey);
      },
      simulate: (args, ctx) => ({
        reply_id: simulatedId('rp', ctx.idempotencyKey),
        ticket_id: args.ticket_id,
      }),
    },
    {
      name: 'tag_ticket',
      description: 'Adds a tag to a ticket.',
      args: {
        type: 'object',
        required: ['ticket_id', 'tag'],
        properties: { ticket_id: ticketId, tag: { type: 'string', pattern: '^[a-z0-9-]{1,40}$' } },
        additionalProperties: false,
      },
      destructive: false,
      effect: 'write',
      idempotent: true,
      scopes: ['helpdesk.tickets.write'],
      handler: (args, ctx) => {
        desk.recordCall('tag_ticket', ctx.idempotencyKey);
        const t = desk.tag(args.ticket_id as string, args.tag as string);
        return { ticket_id: t.id, tags: t.tags };
      },
      simulate: (args) => ({ ticket_id: args.ticket_id, tags: [args.tag] }),
    },
    {
      name: 'issue_refund',
      description:
        'Refunds money to the customer of a ticket. Moves real money: destructive, costs the amount.',
      args: {
        type: 'object',
        required: ['ticket_id', 'amount_usd'],
        properties: {
          ticket_id: ticketId,
          amount_usd: { type: 'number', exclusiveMinimum: 0, multipleOf: 0.01 },
        },
        additionalProperties: false,
      },
      destructive: true,
      effect: 'external',
      idempotent: true,
      scopes: ['payments.refund'],
      cost: { fromArg: 'amount_usd' },
      handler: (args, ctx) => {
        desk.recordCall('issue_refund', ctx.idempotencyKey);
        const cents = Math.round((args.amount_usd as number) * 100);
        const r = desk.refund(args.ticket_id as string, cents, ctx.idempotencyKey);
        // The refund is a new resource in the run's world: recorded, versioned, checked by verify.
        return withDeltas(
          { refund_id: r.refund_id, ticket_id: r.ticket_id, amount_usd: r.amount_cents / 100 },
          [
            {
              op: 'create',
              id: `refund:${r.refund_id}`,
              value: { ticket_id: r.ticket_id, amount_cents: r.amount_cents },
            },
          ],
        );
      },
      simulate: (args, ctx) => {
        const refundId = simulatedId('rf', ctx.idempotencyKey);
        const cents = Math.round((args.amount_usd as number) * 100);
        return withDeltas({ refund_id: refundId, ticket_id: args.ticket_id, amount_usd: cents / 100 }, [
          {
            op: 'create',
            id: `refund:${refundId}`,
            value: { ticket_id: args.ticket_id, amount_cents: cents },
          },
        ]);
      },
    },
    {
      name: 'close_ticket',
      description: 'Closes a ticket. The customer can no longer reply to it: destructive.',
      args: {
        type: 'object',
        required: ['ticket_id'],
        properties: { ticket_id: ticketId, resolution: { type: 'string', maxLength: 400 } },
        additionalProperties: false,
      },
      destructive: true,
      effect: 'write',
      idempotent: true,
      scopes: ['helpdesk.tickets.close'],
      handler: (args, ctx) => {
        desk.recordCall('close_ticket', ctx.idempotencyKey);
        const t = desk.close(args.ticket_id as string);
        return { ticket_id: t.id, status: t.status };
      },
      simulate: (args) => ({ ticket_id: args.ticket_id, status: 'closed' }),
    },
  ];
}

/** A simulated result's id: marked as such, and the same for the same call (its idempotency key). */
function simulatedId(prefix: string, key: string): string {
  return `${prefix}_sim_${key.slice(-12)}`;
}
