// The ticket-triage template's tools (a Keel tool pack: every keel command run in this directory
// loads it). Plain JavaScript that imports nothing of Keel's. The handlers stand in for your
// helpdesk and chat: each effect is appended, once per idempotency key, to .keel/outbox.jsonl
// beside this file. Replace them with calls to your systems; keep each `simulate`: it is what
// TESTING and SHADOW runs see instead of an effect (docs/lifecycle.md).
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

const ticketId = { type: 'string', pattern: '^T-[0-9]+$', description: 'Helpdesk ticket id, e.g. T-3001' };
const TEAMS = ['tier-1', 'tier-2', 'billing'];

export default [
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
    handler: (args, ctx) =>
      act('tag_ticket', args, ctx.idempotencyKey, { ticket_id: args.ticket_id, tags: [args.tag] }),
    simulate: (args) => ({ ticket_id: args.ticket_id, tags: [args.tag] }),
  },
  {
    name: 'assign_ticket',
    description: 'Assigns a ticket to a support team queue, with a first-response target in hours.',
    args: {
      type: 'object',
      required: ['ticket_id', 'team', 'respond_within_hours'],
      properties: {
        ticket_id: ticketId,
        team: { enum: TEAMS },
        respond_within_hours: { type: 'integer', minimum: 1, maximum: 72 },
      },
      additionalProperties: false,
    },
    destructive: false,
    effect: 'write',
    idempotent: true,
    scopes: ['helpdesk.tickets.assign'],
    handler: (args, ctx) =>
      act('assign_ticket', args, ctx.idempotencyKey, { ticket_id: args.ticket_id, team: args.team }),
    simulate: (args) => ({ ticket_id: args.ticket_id, team: args.team }),
  },
  {
    name: 'notify_channel',
    description: 'Posts a message in a team chat channel.',
    args: {
      type: 'object',
      required: ['channel', 'text'],
      properties: {
        channel: { type: 'string', pattern: '^#[a-z0-9-]{1,60}$' },
        text: { type: 'string', minLength: 1, maxLength: 1000 },
      },
      additionalProperties: false,
    },
    destructive: false,
    effect: 'external',
    idempotent: true,
    scopes: ['chat.post'],
    handler: (args, ctx) =>
      act('notify_channel', args, ctx.idempotencyKey, { message_id: `msg_${suffix(ctx.idempotencyKey)}` }),
    simulate: (_args, ctx) => ({ message_id: `msg_sim_${suffix(ctx.idempotencyKey)}` }),
  },
  {
    name: 'send_acknowledgement',
    description: 'Emails the customer that their ticket was received, with when to expect an answer.',
    args: {
      type: 'object',
      required: ['ticket_id', 'email', 'body'],
      properties: {
        ticket_id: ticketId,
        email: { type: 'string', pattern: '^[^@\\s]+@[^@\\s]+$' },
        body: { type: 'string', minLength: 1, maxLength: 2000 },
      },
      additionalProperties: false,
    },
    destructive: false,
    effect: 'external',
    idempotent: true,
    scopes: ['mail.send'],
    handler: (args, ctx) =>
      act('send_acknowledgement', args, ctx.idempotencyKey, { mail_id: `ml_${suffix(ctx.idempotencyKey)}` }),
    simulate: (_args, ctx) => ({ mail_id: `ml_sim_${suffix(ctx.idempotencyKey)}` }),
  },
];
