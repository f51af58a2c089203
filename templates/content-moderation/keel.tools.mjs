// The content-moderation template's tools (a Keel tool pack: every keel command run in this
// directory loads it). Plain JavaScript that imports nothing of Keel's. The handlers stand in for
// your community platform: each effect is appended, once per idempotency key, to
// .keel/outbox.jsonl beside this file. Replace them with calls to your systems; keep each
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

const postId = { type: 'string', pattern: '^P-[0-9]+$', description: 'Post id, e.g. P-9001' };
const REASONS = ['spam', 'harassment', 'misinformation', 'illegal', 'other'];

export default [
  {
    name: 'hide_post',
    description:
      'Hides a post from everyone but its author and moderators, pending review. It can be shown again.',
    args: {
      type: 'object',
      required: ['post_id', 'reason'],
      properties: { post_id: postId, reason: { enum: REASONS } },
      additionalProperties: false,
    },
    destructive: false,
    effect: 'write',
    idempotent: true,
    scopes: ['posts.visibility'],
    handler: (args, ctx) =>
      act('hide_post', args, ctx.idempotencyKey, { post_id: args.post_id, visibility: 'hidden' }),
    simulate: (args) => ({ post_id: args.post_id, visibility: 'hidden' }),
  },
  {
    name: 'remove_post',
    description:
      'Deletes a post and its media for good, keeping a copy only for legal hold. Cannot be undone: destructive.',
    args: {
      type: 'object',
      required: ['post_id', 'reason', 'legal_hold'],
      properties: { post_id: postId, reason: { enum: REASONS }, legal_hold: { type: 'boolean' } },
      additionalProperties: false,
    },
    destructive: true,
    effect: 'write',
    idempotent: true,
    scopes: ['posts.delete'],
    handler: (args, ctx) =>
      act('remove_post', args, ctx.idempotencyKey, {
        post_id: args.post_id,
        removed: true,
        legal_hold: args.legal_hold,
      }),
    simulate: (args) => ({ post_id: args.post_id, removed: true, legal_hold: args.legal_hold }),
  },
  {
    name: 'notify_author',
    description: "Sends a message to a post's author about a moderation decision.",
    args: {
      type: 'object',
      required: ['post_id', 'author_id', 'text'],
      properties: {
        post_id: postId,
        author_id: { type: 'string', pattern: '^U-[0-9]+$' },
        text: { type: 'string', minLength: 1, maxLength: 1000 },
      },
      additionalProperties: false,
    },
    destructive: false,
    effect: 'external',
    idempotent: true,
    scopes: ['messages.send'],
    handler: (args, ctx) =>
      act('notify_author', args, ctx.idempotencyKey, { message_id: `msg_${suffix(ctx.idempotencyKey)}` }),
    simulate: (_args, ctx) => ({ message_id: `msg_sim_${suffix(ctx.idempotencyKey)}` }),
  },
];
