// The access-request template's tools (a Keel tool pack: every keel command run in this directory
// loads it). Plain JavaScript that imports nothing of Keel's. The handlers stand in for your
// directory and identity provider: lookup_employee reads a small table below, and each effect is
// appended, once per idempotency key, to .keel/outbox.jsonl beside this file. Replace them with
// calls to your systems; keep each `simulate`: it is what TESTING and SHADOW runs see instead of an
// effect (docs/lifecycle.md).
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

/** When a grant made at `grantedAt` (an RFC 3339 instant, the run's recorded clock) ends. */
const expiresAt = (grantedAt, days) => new Date(Date.parse(grantedAt) + days * 86_400_000).toISOString();

const EMPLOYEES = {
  'E-41': { name: 'Noor', manager: 'M-7', department: 'analytics', active: true },
  'E-42': { name: 'Tom', manager: 'M-7', department: 'engineering', active: true },
};

const lookup = (args) => {
  const e = EMPLOYEES[args.employee_id];
  return e
    ? { employee_id: args.employee_id, found: true, ...e }
    : { employee_id: args.employee_id, found: false, active: false };
};

const employeeId = { type: 'string', pattern: '^E-[0-9]+$', description: 'Employee id, e.g. E-41' };
const SYSTEMS = ['analytics', 'crm', 'billing', 'payroll', 'production'];
const ROLES = ['viewer', 'editor', 'admin'];

export default [
  {
    name: 'lookup_employee',
    description: "Reads an employee from the directory: name, manager, department, whether they're active.",
    args: {
      type: 'object',
      required: ['employee_id'],
      properties: { employee_id: employeeId },
      additionalProperties: false,
    },
    destructive: false,
    effect: 'read',
    idempotent: true,
    scopes: ['directory.read'],
    handler: lookup,
    simulate: lookup,
  },
  {
    name: 'request_manager_signoff',
    description:
      "The employee's manager signs off: every proposal waits for a person, whatever the version's status.",
    args: {
      type: 'object',
      required: ['manager_id', 'employee_id', 'system', 'role', 'duration_days'],
      properties: {
        manager_id: { type: 'string', pattern: '^M-[0-9]+$' },
        employee_id: employeeId,
        system: { enum: SYSTEMS },
        role: { enum: ROLES },
        duration_days: { type: 'integer', minimum: 1, maximum: 90 },
      },
      additionalProperties: false,
    },
    approval: 'always',
    destructive: false,
    effect: 'read',
    idempotent: true,
    scopes: ['access.signoff'],
    handler: (args) => ({ signed_off: true, manager_id: args.manager_id }),
    simulate: (args) => ({ signed_off: true, manager_id: args.manager_id }),
  },
  {
    name: 'grant_access',
    description:
      'Grants a role on a system to an employee for a number of days, in the identity provider. Widens who can do what: destructive.',
    args: {
      type: 'object',
      required: ['employee_id', 'system', 'role', 'duration_days', 'active', 'granted_at'],
      properties: {
        employee_id: employeeId,
        system: { enum: SYSTEMS },
        role: { enum: ROLES },
        duration_days: { type: 'integer', minimum: 1, maximum: 90 },
        active: { const: true },
        granted_at: { type: 'string', format: 'date-time' },
      },
      additionalProperties: false,
    },
    destructive: true,
    effect: 'write',
    idempotent: true,
    scopes: ['idp.grants.write'],
    handler: (args, ctx) =>
      act('grant_access', args, ctx.idempotencyKey, {
        grant_id: `gr_${suffix(ctx.idempotencyKey)}`,
        expires_at: expiresAt(args.granted_at, args.duration_days),
      }),
    simulate: (args, ctx) => ({
      grant_id: `gr_sim_${suffix(ctx.idempotencyKey)}`,
      expires_at: expiresAt(args.granted_at, args.duration_days),
    }),
  },
  {
    name: 'notify_requester',
    description: 'Messages the employee about their access request.',
    args: {
      type: 'object',
      required: ['employee_id', 'text'],
      properties: { employee_id: employeeId, text: { type: 'string', minLength: 1, maxLength: 1000 } },
      additionalProperties: false,
    },
    destructive: false,
    effect: 'external',
    idempotent: true,
    scopes: ['chat.dm'],
    handler: (args, ctx) =>
      act('notify_requester', args, ctx.idempotencyKey, { message_id: `msg_${suffix(ctx.idempotencyKey)}` }),
    simulate: (_args, ctx) => ({ message_id: `msg_sim_${suffix(ctx.idempotencyKey)}` }),
  },
  {
    name: 'revoke_access',
    description:
      'Revokes a grant in the identity provider when its time is up. Narrows who can do what, so it asks nobody.',
    args: {
      type: 'object',
      required: ['employee_id', 'system', 'role', 'grant_id'],
      properties: {
        employee_id: employeeId,
        system: { enum: SYSTEMS },
        role: { enum: ROLES },
        grant_id: { type: 'string', pattern: '^gr_' },
      },
      additionalProperties: false,
    },
    destructive: false,
    effect: 'write',
    idempotent: true,
    scopes: ['idp.grants.write'],
    handler: (args, ctx) =>
      act('revoke_access', args, ctx.idempotencyKey, { revoked: true, grant_id: args.grant_id }),
    simulate: (args) => ({ revoked: true, grant_id: args.grant_id }),
  },
];
