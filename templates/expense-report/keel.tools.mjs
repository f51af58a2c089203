// The expense-report template's tools (a Keel tool pack: every keel command run in this directory
// loads it). Plain JavaScript that imports nothing of Keel's. The handlers stand in for your
// systems: check_receipts reads a small receipt table below, and each effect is appended, once per
// idempotency key, to .keel/outbox.jsonl beside this file. Replace them with calls to your expense
// system and payroll; keep each `simulate`: it is what TESTING and SHADOW runs see instead of an
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

/** Receipts on file per report: how many, and their total. */
const RECEIPTS = {
  'EXP-301': { receipts: 3, total_usd: 86.4 },
  'EXP-302': { receipts: 1, total_usd: 42 },
  'EXP-303': { receipts: 6, total_usd: 740 },
};

const check = (args) => {
  const r = RECEIPTS[args.report_id] ?? { receipts: 0, total_usd: 0 };
  return { report_id: args.report_id, ...r, complete: r.receipts > 0 };
};

const reportId = { type: 'string', pattern: '^EXP-[0-9]+$', description: 'Expense report id, e.g. EXP-301' };
const money = { type: 'number', exclusiveMinimum: 0, multipleOf: 0.01 };
const CATEGORIES = ['travel', 'meals', 'lodging', 'equipment', 'training', 'alcohol', 'other'];

export default [
  {
    name: 'check_receipts',
    description: 'Reads the receipts attached to an expense report: how many, and their total.',
    args: {
      type: 'object',
      required: ['report_id'],
      properties: { report_id: reportId },
      additionalProperties: false,
    },
    destructive: false,
    effect: 'read',
    idempotent: true,
    scopes: ['expenses.read'],
    handler: check,
    simulate: check,
  },
  {
    name: 'approve_expense',
    description: 'Marks an expense report approved in the expense system (it can be reopened).',
    args: {
      type: 'object',
      required: ['report_id', 'employee_id', 'amount_usd', 'category'],
      properties: {
        report_id: reportId,
        employee_id: { type: 'string', pattern: '^E-[0-9]+$' },
        amount_usd: money,
        category: { enum: CATEGORIES },
      },
      additionalProperties: false,
    },
    destructive: false,
    effect: 'write',
    idempotent: true,
    scopes: ['expenses.approve'],
    handler: (args, ctx) =>
      act('approve_expense', args, ctx.idempotencyKey, { report_id: args.report_id, status: 'approved' }),
    simulate: (args) => ({ report_id: args.report_id, status: 'approved' }),
  },
  {
    name: 'reimburse_employee',
    description:
      "Pays an approved report to the employee's bank account. Moves money: destructive, costs the amount.",
    args: {
      type: 'object',
      required: ['report_id', 'employee_id', 'amount_usd'],
      properties: {
        report_id: reportId,
        employee_id: { type: 'string', pattern: '^E-[0-9]+$' },
        amount_usd: money,
      },
      additionalProperties: false,
    },
    destructive: true,
    effect: 'external',
    idempotent: true,
    scopes: ['payroll.reimburse'],
    cost: { fromArg: 'amount_usd' },
    handler: (args, ctx) =>
      act('reimburse_employee', args, ctx.idempotencyKey, {
        payment_id: `py_${suffix(ctx.idempotencyKey)}`,
        amount_usd: args.amount_usd,
      }),
    simulate: (args, ctx) => ({
      payment_id: `py_sim_${suffix(ctx.idempotencyKey)}`,
      amount_usd: args.amount_usd,
    }),
  },
];
