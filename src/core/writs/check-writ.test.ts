import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { attenuate } from './attenuate.ts';
import { checkWrit, type WritCheckInput } from './check-writ.ts';
import { keyPair, signedRoot } from './fixtures.test-helpers.ts';
import { keyIdOf, signWrit, writSignatureValid } from './sign-writ.ts';
import { verifyWritChain } from './verify-writ-chain.ts';
import { type SignedWrit, writHash } from './writ.ts';

const acme = keyPair('acme');
const globex = keyPair('globex');
const root = signedRoot(acme);

function child(
  parent: SignedWrit,
  over: Parameters<typeof attenuate>[1] extends infer R ? Partial<R> : never = {},
): SignedWrit {
  const r = attenuate(
    parent.body,
    { id: 'child', subject: 'run-7', issuer: acme.trusted.keyId, ...over },
    parent.body.budget,
  );
  assert.ok(r.ok, JSON.stringify(!r.ok && r.violations));
  return signWrit(r.body, acme.privateKey);
}

describe('signWrit', () => {
  it('signs the canonical body deterministically; any change to the body breaks the signature', () => {
    assert.equal(signWrit(root.body, acme.privateKey).signature, root.signature);
    assert.ok(writSignatureValid(root, acme.publicKey));
    assert.ok(
      !writSignatureValid(
        { ...root, body: { ...root.body, budget: { ...root.body.budget, cents: 10_001 } } },
        acme.publicKey,
      ),
    );
    assert.ok(!writSignatureValid(root, globex.publicKey));
    assert.match(keyIdOf(acme.publicKey), /^sha256:[0-9a-f]{64}$/);
    assert.throws(() => signWrit(root.body, acme.publicKey), /expected an Ed25519 private key/);
  });
});

describe('verifyWritChain', () => {
  const c1 = child(root, { scopes: ['helpdesk.*'] });
  const c2 = child(c1, { id: 'grandchild', scopes: ['helpdesk.reply'] });

  it('verifies a chain to a trusted root and returns every hash, root first', () => {
    const r = verifyWritChain([root, c1, c2], [acme.trusted]);
    assert.ok(r.ok);
    assert.deepEqual(r.hashes, [writHash(root), writHash(c1), writHash(c2)]);
  });

  it('rejects a child presented without its chain to a trusted root', () => {
    const r = verifyWritChain([c2], [acme.trusted]);
    assert.ok(!r.ok);
    assert.equal(r.violations[0]!.code, 'writ_chain_untrusted');
    const partial = verifyWritChain([c1, c2], [acme.trusted]);
    assert.ok(!partial.ok && partial.violations[0]!.code === 'writ_chain_untrusted');
  });

  it('rejects a root signed by a key not trusted for its tenant', () => {
    const r = verifyWritChain([root], [globex.trusted, { ...acme.trusted, tenant: 'globex' }]);
    assert.ok(!r.ok && r.violations[0]!.code === 'writ_chain_untrusted');
  });

  it('rejects a bad signature with writ_signature_invalid, naming the link', () => {
    const forged = { ...c1, body: { ...c1.body, scopes: ['helpdesk.*', 'issue_refund'] } };
    const r = verifyWritChain([root, forged, c2], [acme.trusted]);
    assert.ok(!r.ok);
    assert.equal(r.index, 1);
    assert.equal(r.violations[0]!.code, 'writ_signature_invalid');
  });

  it('rejects a broken parent link, even when every signature is valid', () => {
    const other = signedRoot(acme, { id: 'root-2' });
    const r = verifyWritChain([other, c1], [acme.trusted]);
    assert.ok(!r.ok && r.violations[0]!.code === 'writ_parent_mismatch');
  });

  it('a valid signature is not enough: a signed child that widens its parent is refused with the subset code', () => {
    const wide = signWrit({ ...c1.body, scopes: ['*'] }, acme.privateKey);
    const r = verifyWritChain([root, wide], [acme.trusted]);
    assert.ok(!r.ok);
    assert.equal(r.violations[0]!.code, 'writ_scope_widened');
  });

  it('rejects malformed links with writ_malformed naming the field', () => {
    const r = verifyWritChain(
      [{ body: { ...root.body, depth: -1 }, signature: root.signature }],
      [acme.trusted],
    );
    assert.ok(!r.ok);
    assert.deepEqual(r.violations[0], {
      code: 'writ_malformed',
      field: 'body.depth',
      message: 'expected an integer >= 0',
    });
  });
});

describe('checkWrit', () => {
  const leaf = child(root, {
    scopes: ['helpdesk.*'],
    budget: { cents: 1000, steps: 3, calls: 2 },
    window: { notBefore: '2026-03-10T00:00:00Z', notAfter: '2026-03-20T00:00:00Z' },
    effectCeiling: { max: 'write', destructive: false },
  });
  const ok: WritCheckInput = {
    chain: [root, leaf],
    trusted: [acme.trusted],
    revoked: new Set(),
    now: '2026-03-14T10:00:00Z',
    proposal: {
      tenant: 'acme',
      tool: { name: 'helpdesk.reply', effect: 'write', destructive: false },
      costCents: 100,
    },
    usage: { cents: 0, steps: 0, calls: 0 },
  };
  const code = (over: Partial<WritCheckInput>) => {
    const r = checkWrit({ ...ok, ...over });
    return r.ok ? 'ok' : r.code;
  };

  it('passes a proposal inside every bound and names the writ hash', () => {
    const r = checkWrit(ok);
    assert.deepEqual(r, { ok: true, hash: writHash(leaf) });
  });

  it("judges one tool descriptor against each writ by that writ: a verdict kept for one writ is not another's", () => {
    const tool = { name: 'issue_refund', effect: 'write' as const, destructive: false };
    const refunds = child(root, { id: 'refunds', scopes: ['issue_refund'] });
    const proposal = { ...ok.proposal, tool };
    for (let i = 0; i < 2; i++) {
      assert.equal(code({ proposal }), 'writ_scope_denied');
      assert.equal(code({ chain: [root, refunds], proposal }), 'ok');
    }
  });

  it('checks in the fixed order signature -> tenant -> revocation -> time -> scope -> effect -> budget', () => {
    // Everything wrong at once; fixing the first failure reveals the next.
    const bad: Partial<WritCheckInput> = {
      chain: [root, { ...leaf, signature: root.signature }],
      proposal: {
        tenant: 'globex',
        tool: { name: 'issue_refund', effect: 'external', destructive: true },
        costCents: 5000,
      },
      revoked: new Set([writHash(leaf)]),
      now: '2026-03-25T00:00:00Z',
      usage: { cents: 0, steps: 3, calls: 2 },
    };
    const steps: [string, Partial<WritCheckInput>][] = [
      ['writ_signature_invalid', {}],
      ['writ_tenant_denied', { chain: ok.chain }],
      ['writ_revoked', { proposal: { ...bad.proposal!, tenant: 'acme' } }],
      ['writ_expired', { revoked: new Set() }],
      ['writ_scope_denied', { now: ok.now }],
      [
        'writ_effect_denied',
        {
          proposal: {
            ...bad.proposal!,
            tenant: 'acme',
            tool: { ...bad.proposal!.tool, name: 'helpdesk.reply' },
          },
        },
      ],
      ['writ_budget_exhausted', { proposal: { ...ok.proposal, costCents: 5000 } }],
      ['ok', { usage: ok.usage, proposal: ok.proposal }],
    ];
    let input = { ...ok, ...bad };
    for (const [expected, fix] of steps) {
      input = { ...input, ...fix };
      assert.equal(code(input), expected);
    }
  });

  it('distinguishes not yet valid from expired; notAfter is exclusive', () => {
    assert.equal(code({ now: '2026-03-09T23:59:59Z' }), 'writ_not_yet_valid');
    assert.equal(code({ now: '2026-03-10T00:00:00Z' }), 'ok');
    assert.equal(code({ now: '2026-03-20T00:00:00Z' }), 'writ_expired');
  });

  it('revoking an ancestor revokes the writ', () => {
    const r = checkWrit({ ...ok, revoked: new Set([writHash(root)]) });
    assert.ok(!r.ok);
    assert.equal(r.code, 'writ_revoked');
    assert.match(r.message, /derives from revoked writ root-1/);
  });

  it('refuses a destructive tool under a non-destructive ceiling, and an effect above the ceiling', () => {
    assert.equal(
      code({ proposal: { ...ok.proposal, tool: { ...ok.proposal.tool, destructive: true } } }),
      'writ_effect_denied',
    );
    assert.equal(
      code({ proposal: { ...ok.proposal, tool: { ...ok.proposal.tool, effect: 'external' } } }),
      'writ_effect_denied',
    );
  });

  it('a third call on a 2-call writ is refused; steps and cents are bounded too', () => {
    assert.equal(code({ usage: { cents: 0, steps: 1, calls: 1 } }), 'ok');
    const third = checkWrit({ ...ok, usage: { cents: 0, steps: 2, calls: 2 } });
    assert.ok(!third.ok);
    assert.equal(third.code, 'writ_budget_exhausted');
    assert.match(third.message, /allows 2 tool calls and 2 were made/);
    assert.equal(code({ usage: { cents: 0, steps: 3, calls: 0 } }), 'writ_budget_exhausted');
    assert.equal(code({ usage: { cents: 900, steps: 0, calls: 0 } }), 'ok');
    assert.equal(code({ usage: { cents: 901, steps: 0, calls: 0 } }), 'writ_budget_exhausted');
  });
});
