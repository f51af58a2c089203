/**
 * Policies and writs on real runs through the real `keel` command: `emit --writ` under
 * `--policy` and `--trust`; the denied refund never reaches the helpdesk, the ledger says why, and
 * a writ nobody trusts creates no run (exit 8, writ_refused).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { exampleEvent, exampleSpec, failJson, okJson, Sandbox } from '../helpers/keel-cli.ts';
import { putAtStatus } from '../helpers/lifecycle.ts';
import { HelpdeskFile } from '../helpers/sqlite-files.ts';

const POLICY = `default: deny
rules:
  - id: big-refunds
    match: {tool: issue_refund}
    when: args.amount_usd > 20
    outcome: deny
    reason: refunds over $20 need another route
  - id: desk
    match: {tool: [draft_reply, issue_refund]}
    outcome: allow
`;

describe('keel emit --writ under --policy and --trust', () => {
  const sb = new Sandbox('governed', { supportDesk: true });
  after(() => sb.remove());
  const keys = join(sb.dir, 'keys');

  it('judges every proposal by the policy under the writ, and ledgers each decision', async () => {
    okJson(sb.keel(['--json', '--tenant', 'default', 'writs', 'keygen', '--out', keys]));
    const req = sb.write('root.json', {
      id: 'desk-1',
      tenant: 'default',
      subject: 'refund-desk',
      scopes: ['draft_reply', 'issue_refund'],
      budget: { cents: 10_000, steps: 5, calls: 2 },
      window: { notBefore: '2026-01-01T00:00:00Z', notAfter: '2100-01-01T00:00:00Z' },
      effectCeiling: { max: 'external', destructive: true },
      delegation: { maxDepth: 1, maySubdivide: true },
    });
    const writ = join(sb.dir, 'desk.writ.json');
    okJson(sb.keel(['--json', 'writs', 'issue', req, '--key', join(keys, 'default.key.pem'), '--out', writ]));
    const policy = sb.write('policy.yaml', POLICY);
    okJson(sb.keel(['--json', 'publish', exampleSpec('refund-under-50'), '--as', 'alice']));
    // Not a test of promotion: put at AUTONOMOUS directly (a recorded fixture, past the gates).
    await putAtStatus(sb.store(), 'default', 'refund-under-50', 'AUTONOMOUS');

    const trust = ['--policy', policy, '--trust-keys', join(keys, 'default.pub.pem')];
    const out = okJson<{ runs: { runId: string; status: string }[] }>(
      sb.keel(['--json', ...trust, 'emit', exampleEvent('refund-30'), '--writ', writ]),
    );
    assert.equal(out.runs[0]!.status, 'refused');
    const desk = new HelpdeskFile(sb.helpdesk());
    assert.equal(desk.calls('issue_refund'), 0);
    assert.equal(desk.calls('draft_reply'), 1);
    const history = okJson<{ kind: string; text: string }[]>(
      sb.keel(['--json', 'history', out.runs[0]!.runId]),
    ).map((h) => h.text);
    assert.match(history[0]!, /under writ sha256:/);
    assert.match(history.join('\n'), /Allowed draft_reply.*policy rule desk allowed it/);
    assert.match(history.join('\n'), /Refused issue_refund: .*refunds over \$20 need another route/);
    // The replay judges again under the same policy and keys, at the recorded times.
    okJson(sb.keel(['--json', ...trust, 'replay', out.runs[0]!.runId]));
  });

  it('refuses a writ when no key of the tenant is trusted, creating no run', () => {
    const writ = join(sb.dir, 'desk.writ.json');
    const e = failJson(sb.keel(['--json', 'emit', exampleEvent('refund-30'), '--writ', writ]), 8);
    assert.equal(e.error, 'writ_refused');
    assert.equal(e.details?.code, 'writ_chain_untrusted');
  });
});
