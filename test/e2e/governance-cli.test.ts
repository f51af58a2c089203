/**
 * `keel writs keygen | issue | attenuate | inspect` and `keel policy check`, driven through the
 * real command: keys on disk, writ files with their chain, each refusal with its code and exit 8.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DIGEST, failJson, failText, okJson, Sandbox } from '../helpers/keel-cli.ts';

const ROOT_REQUEST = {
  id: 'root-1',
  tenant: 'acme',
  subject: 'refund-desk',
  scopes: ['helpdesk.*', 'issue_refund'],
  budget: { cents: 10_000, steps: 10, calls: 8 },
  window: { notBefore: '2026-03-01T00:00:00Z', notAfter: '2026-04-01T00:00:00Z' },
  effectCeiling: { max: 'external', destructive: true },
  delegation: { maxDepth: 2, maySubdivide: true },
};

describe('keel writs and keel policy', () => {
  let sb: Sandbox;
  let keyId: string;
  const keys = () => join(sb.dir, 'keys');
  before(() => {
    sb = new Sandbox('governance');
    const r = okJson<{ keyId: string; privateKey: string }>(
      sb.keel(['--json', '--tenant', 'acme', 'writs', 'keygen', '--out', keys()]),
    );
    keyId = r.keyId;
  });
  after(() => sb.remove());

  it('keygen writes a private key readable only by its owner, and never overwrites keys', () => {
    assert.match(keyId, DIGEST);
    assert.equal(statSync(join(keys(), 'acme.key.pem')).mode & 0o777, 0o600);
    assert.match(readFileSync(join(keys(), 'acme.pub.pem'), 'utf8'), /BEGIN PUBLIC KEY/);
    const again = failJson(sb.keel(['--json', '--tenant', 'acme', 'writs', 'keygen', '--out', keys()]), 2);
    assert.match(again.message, /already exists; keys are never overwritten/);
  });

  it('issues, attenuates and verifies a chain; a child alone or under a foreign key does not verify', () => {
    const req = sb.write('root.json', ROOT_REQUEST);
    const key = join(keys(), 'acme.key.pem');
    const pub = join(keys(), 'acme.pub.pem');
    const root = okJson<{ chain: { body: { issuer: string } }[] }>(
      sb.keel(['--json', 'writs', 'issue', req, '--key', key, '--out', join(sb.dir, 'root.writ.json')]),
    );
    assert.equal(root.chain[0]!.body.issuer, keyId);
    const child = sb.write('child.json', {
      id: 'c1',
      subject: 'run-7',
      scopes: ['helpdesk.reply'],
      budget: { calls: 2 },
    });
    okJson(
      sb.keel([
        '--json',
        'writs',
        'attenuate',
        join(sb.dir, 'root.writ.json'),
        child,
        '--key',
        key,
        '--out',
        join(sb.dir, 'c1.writ.json'),
      ]),
    );
    const shown = okJson<{ verified: boolean; chain: unknown[]; writ: { budget: { calls: number } } }>(
      sb.keel(['--json', 'writs', 'inspect', join(sb.dir, 'c1.writ.json'), '--trust', pub]),
    );
    assert.equal(shown.verified, true);
    assert.equal(shown.chain.length, 2);
    assert.equal(shown.writ.budget.calls, 2);

    const full = JSON.parse(readFileSync(join(sb.dir, 'c1.writ.json'), 'utf8')) as { chain: unknown[] };
    const alone = sb.write('alone.writ.json', { chain: full.chain.slice(1) });
    const e = failJson(sb.keel(['--json', 'writs', 'inspect', alone, '--trust', pub]), 8);
    assert.equal(e.error, 'writ_refused');
    assert.equal(e.details?.code, 'writ_chain_untrusted');

    okJson(sb.keel(['--json', '--tenant', 'globex', 'writs', 'keygen', '--out', keys()]));
    const foreign = failJson(
      sb.keel([
        '--json',
        'writs',
        'inspect',
        join(sb.dir, 'c1.writ.json'),
        '--trust',
        join(keys(), 'globex.pub.pem'),
      ]),
      8,
    );
    assert.equal(foreign.details?.code, 'writ_chain_untrusted');
  });

  it('refuses each widening with its own code, listing every violation', () => {
    const key = join(keys(), 'acme.key.pem');
    const parent = join(sb.dir, 'root.writ.json');
    const cases: [Record<string, unknown>, string][] = [
      [{ scopes: ['payments.*'] }, 'writ_scope_widened'],
      [{ budget: { calls: 9 } }, 'writ_budget_raised'],
      [{ window: { notAfter: '2026-05-01T00:00:00Z' } }, 'writ_window_extended'],
      [{ delegation: { maxDepth: 3 } }, 'writ_depth_exceeded'],
      [{ tenant: 'globex' }, 'writ_tenant_changed'],
    ];
    for (const [over, code] of cases) {
      const req = sb.write(`bad-${code}.json`, { id: 'bad', subject: 's', ...over });
      const e = failJson(sb.keel(['--json', 'writs', 'attenuate', parent, req, '--key', key]), 8);
      assert.equal(e.details?.code, code);
    }
    const many = sb.write('many.json', { id: 'bad', subject: 's', scopes: ['x'], tenant: 'globex' });
    const text = failText(sb.keel(['writs', 'attenuate', parent, many, '--key', key]), 8);
    assert.match(text, /- tenant: writ_tenant_changed/);
    assert.match(text, /- scopes\[0\]: writ_scope_widened/);
  });

  it('names the field of a malformed request, and exits 2', () => {
    const req = sb.write('bad-root.json', { ...ROOT_REQUEST, budget: { cents: -5, steps: 1, calls: 1 } });
    const e = failJson(sb.keel(['--json', 'writs', 'issue', req, '--key', join(keys(), 'acme.key.pem')]), 2);
    assert.equal(e.error, 'writ_invalid');
    assert.match(e.message, /budget\.cents: expected an integer >= 0/);
    const notKey = failJson(
      sb.keel(['--json', 'writs', 'issue', req, '--key', join(keys(), 'acme.pub.pem')]),
      2,
    );
    assert.match(notKey.message, /not an Ed25519 private key/);
  });

  it('policy check validates and prints the hash; a bad policy names file:line:column and field', () => {
    const good = sb.write(
      'policy.yaml',
      'rules:\n  - id: big-refunds\n    match: { tool: issue_refund }\n    when: args.amount_usd > 20\n    outcome: require_approval\n',
    );
    const r = okJson<{ valid: boolean; hash: string; rules: number }>(
      sb.keel(['--json', 'policy', 'check', good]),
    );
    assert.equal(r.valid, true);
    assert.match(r.hash, DIGEST);
    assert.equal(r.rules, 1);
    const bad = sb.write('bad.yaml', 'rules:\n  - id: r\n    when: args.x >> 2\n    outcome: deny\n');
    const e = failJson(sb.keel(['--json', 'policy', 'check', bad]), 2);
    assert.equal(e.error, 'policy_invalid');
    assert.match(e.message, /bad\.yaml:3:19: rules\[0\]\.when: invalid condition/);
  });
});
