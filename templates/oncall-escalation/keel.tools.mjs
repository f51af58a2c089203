// The oncall-escalation template's tools (a Keel tool pack: every keel command run in this
// directory loads it). Plain JavaScript that imports nothing of Keel's. The handlers stand in for
// your incident tracker, pager and status page: each effect is appended, once per idempotency key,
// to .keel/outbox.jsonl beside this file. Replace them with calls to your systems; keep each
// `simulate`: it is what TESTING and SHADOW runs see instead of an effect (docs/lifecycle.md).
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

const SERVICES = ['checkout', 'search', 'auth', 'payments-api'];

export default [
  {
    name: 'open_incident',
    description: 'Opens an incident in the tracker and returns its id.',
    args: {
      type: 'object',
      required: ['service', 'severity', 'title'],
      properties: {
        service: { enum: SERVICES },
        severity: { enum: ['sev1', 'sev2', 'sev3'] },
        title: { type: 'string', minLength: 1, maxLength: 200 },
      },
      additionalProperties: false,
    },
    destructive: false,
    effect: 'write',
    idempotent: true,
    scopes: ['incidents.write'],
    handler: (args, ctx) =>
      act('open_incident', args, ctx.idempotencyKey, { incident_id: `INC-${suffix(ctx.idempotencyKey)}` }),
    simulate: (_args, ctx) => ({ incident_id: `INC-sim-${suffix(ctx.idempotencyKey)}` }),
  },
  {
    name: 'page_on_call',
    description: "Pages a service's on-call engineer (primary or secondary) by phone. Each page costs $0.05.",
    args: {
      type: 'object',
      required: ['service', 'rotation', 'incident_id', 'message'],
      properties: {
        service: { enum: SERVICES },
        rotation: { enum: ['primary', 'secondary'] },
        incident_id: { type: 'string', minLength: 1 },
        message: { type: 'string', minLength: 1, maxLength: 160 },
      },
      additionalProperties: false,
    },
    destructive: false,
    effect: 'external',
    idempotent: true,
    scopes: ['pager.page'],
    cost: { fixedUsd: 0.05 },
    handler: (args, ctx) =>
      act('page_on_call', args, ctx.idempotencyKey, {
        page_id: `pg_${suffix(ctx.idempotencyKey)}`,
        rotation: args.rotation,
      }),
    simulate: (args, ctx) => ({ page_id: `pg_sim_${suffix(ctx.idempotencyKey)}`, rotation: args.rotation }),
  },
  {
    name: 'post_status_update',
    description: 'Posts an update on the public status page.',
    args: {
      type: 'object',
      required: ['service', 'status', 'text'],
      properties: {
        service: { enum: SERVICES },
        status: { enum: ['investigating', 'identified', 'monitoring', 'resolved'] },
        text: { type: 'string', minLength: 1, maxLength: 500 },
      },
      additionalProperties: false,
    },
    destructive: false,
    effect: 'external',
    idempotent: true,
    scopes: ['statuspage.write'],
    handler: (args, ctx) =>
      act('post_status_update', args, ctx.idempotencyKey, { update_id: `su_${suffix(ctx.idempotencyKey)}` }),
    simulate: (_args, ctx) => ({ update_id: `su_sim_${suffix(ctx.idempotencyKey)}` }),
  },
];
