/**
 * Issue 30: values an earlier read step of the draft returns (grammar/earlier-outputs.ts): the
 * amount the words name ("the full balance"), a required argument the read returns by name, a
 * count its description says ("how many loans there are"), an id another step made; an enum
 * value the words say that the argument does not take asks. Catalogs no corpus set uses.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileRequest } from '../../src/core/authoring/compile-request.ts';
import type { DraftCatalog } from '../../src/core/authoring/compiled-request.ts';
import { draftSpec } from '../../src/core/authoring/draft-spec.ts';
import { toolSteps } from '../../src/core/spec/flow-steps.ts';
import { tool } from './catalog-tool.ts';

const leases: DraftCatalog = {
  tools: [
    tool({
      name: 'get_lease',
      description: 'Reads a lease: tenant and balance held.',
      effect: 'read',
      args: { type: 'object', required: ['lease_id'], properties: { lease_id: { type: 'string' } } },
      result: { type: 'object', properties: { tenant: { type: 'string' }, balance_usd: { type: 'number' } } },
    }),
    tool({
      name: 'return_deposit',
      description: 'Pays a deposit back to a tenant.',
      destructive: true,
      args: {
        type: 'object',
        required: ['lease_id', 'amount_usd'],
        properties: { lease_id: { type: 'string' }, amount_usd: { type: 'number' } },
      },
      cost: { fromArg: 'amount_usd' },
    }),
  ],
  events: [{ type: 'deposit.claimed', payload: ['lease_id', 'amount_usd', 'reason'] }],
};

const archives: DraftCatalog = {
  tools: [
    tool({
      name: 'find_member',
      description: 'Reads a library member: their email, plan and how many loans there are.',
      effect: 'read',
      args: { type: 'object', required: ['member_id'], properties: { member_id: { type: 'string' } } },
    }),
    tool({
      name: 'pack_archive',
      description: "Packs a member's loan history into an archive.",
      args: {
        type: 'object',
        required: ['member_id', 'loan_count', 'kind'],
        properties: {
          member_id: { type: 'string' },
          loan_count: { type: 'integer' },
          kind: { enum: ['zip', 'tar'] },
        },
      },
    }),
    tool({
      name: 'mail_archive',
      description: 'Mails an archive to an address.',
      destructive: true,
      args: {
        type: 'object',
        required: ['archive_id', 'email'],
        properties: { archive_id: { type: 'string' }, email: { type: 'string' } },
      },
    }),
  ],
  events: [{ type: 'archive.requested', payload: ['plan'] }],
};

const draft = (r: string, c: DraftCatalog) => draftSpec(compileRequest(r, c), c);
const argsOf = (d: ReturnType<typeof draft>) => toolSteps(d.spec!).map((s) => [s.name, s.tool, s.args]);

test('"return the full balance (not just the amount claimed)" moves what the earlier read returns, Assumed', () => {
  const d = draft(
    'when a deposit is claimed, get the lease and return the full balance (not just the amount claimed). cap $900',
    leases,
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const [read, pay] = toolSteps(d.spec!);
  assert.equal(read?.tool, 'get_lease');
  assert.equal(pay?.args.amount_usd, `{{steps.${read!.name}.output.balance_usd}}`);
  assert.match(d.readBack!.text, /Assumed:[\s\S]*amount_usd is what .* returns as balance_usd/);
});

test('words that name the event amount keep it: the read returns another, unnamed', () => {
  const d = draft('when a deposit is claimed, get the lease and return the amount claimed. cap $900', leases);
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const pay = toolSteps(d.spec!).find((s) => s.tool === 'return_deposit');
  assert.equal(pay?.args.amount_usd, '{{event.payload.amount_usd}}');
});

test('a count the read describes, an email it returns by name, and an id another step made fill the steps', () => {
  const d = draft(
    'when an archive is requested, find the member, pack the archive as zip and mail it',
    archives,
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const steps = toolSteps(d.spec!);
  const find = steps.find((s) => s.tool === 'find_member')!;
  const pack = steps.find((s) => s.tool === 'pack_archive')!;
  const mail = steps.find((s) => s.tool === 'mail_archive')!;
  assert.ok(steps.indexOf(find) < steps.indexOf(pack), JSON.stringify(argsOf(d)));
  assert.equal(pack.args.loan_count, `{{steps.${find.name}.output.loan_count}}`);
  assert.equal(mail.args.email, `{{steps.${find.name}.output.email}}`);
  assert.equal(mail.args.archive_id, `{{steps.${pack.name}.output.archive_id}}`);
  assert.match(d.readBack!.text, /email is what .* returns as email/);
  assert.match(d.readBack!.text, /archive_id is what .* made/);
});

test('two steps that each make the id a later step takes: a question, not a guess', () => {
  const d = draft(
    'when an archive is requested, find the member, pack it as zip, pack it as tar, then mail it',
    archives,
  );
  assert.equal(d.publishable, false);
  assert.ok(
    d.questions.some((q) =>
      /Which archive should .*mail_archive.* take: what .* made\? Each makes one/.test(q.question),
    ),
    JSON.stringify(d.questions),
  );
});

test('a value the words say that an enum argument does not take asks', () => {
  const d = draft(
    'when an archive is requested, find the member, pack the archive as a rar file and mail it',
    archives,
  );
  assert.equal(d.publishable, false);
  assert.ok(
    d.questions.some((q) =>
      /pack_archive's kind be: zip or tar\? The request says "as a rar file"/.test(q.question),
    ),
    JSON.stringify(d.questions),
  );
});
