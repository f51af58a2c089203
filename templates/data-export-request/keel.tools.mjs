// The data-export-request template's tools (a Keel tool pack: every keel command run in this
// directory loads it). Plain JavaScript that imports nothing of Keel's. The handlers stand in for
// your customer database, export job and mailer: find_customer_records reads a small table below,
// and each effect is appended, once per idempotency key, to .keel/outbox.jsonl beside this file.
// Replace them with calls to your systems; keep each `simulate`: it is what TESTING and SHADOW runs
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

const CUSTOMERS = {
  'C-2001': { email: 'jo@example.com', region: 'us', record_count: 412 },
  'C-2002': { email: 'lea@example.eu', region: 'eu', record_count: 1280 },
};

const find = (args) => {
  const c = CUSTOMERS[args.customer_id];
  return c
    ? { customer_id: args.customer_id, found: true, ...c }
    : { customer_id: args.customer_id, found: false };
};

const customerId = { type: 'string', pattern: '^C-[0-9]+$', description: 'Customer id, e.g. C-2001' };

export default [
  {
    name: 'find_customer_records',
    description: "Reads where a customer's data lives: their email, region and how many records there are.",
    args: {
      type: 'object',
      required: ['customer_id'],
      properties: { customer_id: customerId },
      additionalProperties: false,
    },
    destructive: false,
    effect: 'read',
    idempotent: true,
    scopes: ['customers.read'],
    handler: find,
    simulate: find,
  },
  {
    name: 'build_export',
    description:
      "Builds an encrypted archive of a customer's records. Each export costs $0.25 of compute and storage.",
    args: {
      type: 'object',
      required: ['customer_id', 'region', 'record_count', 'format'],
      properties: {
        customer_id: customerId,
        region: { enum: ['us', 'eu', 'apac'] },
        record_count: { type: 'integer', minimum: 0 },
        format: { enum: ['json', 'csv'] },
      },
      additionalProperties: false,
    },
    destructive: false,
    effect: 'write',
    idempotent: true,
    scopes: ['exports.build'],
    cost: { fixedUsd: 0.25 },
    handler: (args, ctx) =>
      act('build_export', args, ctx.idempotencyKey, {
        export_id: `ex_${suffix(ctx.idempotencyKey)}`,
        format: args.format,
      }),
    simulate: (args, ctx) => ({ export_id: `ex_sim_${suffix(ctx.idempotencyKey)}`, format: args.format }),
  },
  {
    name: 'send_secure_link',
    description:
      'Emails a download link to an export. Personal data leaves the company and cannot be called back: destructive.',
    args: {
      type: 'object',
      required: ['email', 'export_id', 'expires_hours'],
      properties: {
        email: { type: 'string', pattern: '^[^@\\s]+@[^@\\s]+$' },
        export_id: { type: 'string', minLength: 1 },
        expires_hours: { type: 'integer', minimum: 1, maximum: 720 },
      },
      additionalProperties: false,
    },
    destructive: true,
    effect: 'external',
    idempotent: true,
    scopes: ['mail.send', 'exports.share'],
    handler: (args, ctx) =>
      act('send_secure_link', args, ctx.idempotencyKey, { link_id: `ln_${suffix(ctx.idempotencyKey)}` }),
    simulate: (_args, ctx) => ({ link_id: `ln_sim_${suffix(ctx.idempotencyKey)}` }),
  },
];
