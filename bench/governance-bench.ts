/**
 * The governed variant of the sequential 3-step figure: the same workload under a tenant policy
 * (a few rules, the allow outcome, one `when` reading args and the clock) and a writ (a root and
 * a child, so every proposal verifies a chain of two signatures). Fixtures only; run.ts measures.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { KeelConfig, StartOptions } from '../src/app/index.ts';
import { parsePolicy } from '../src/core/policy/index.ts';
import { attenuate, keyIdOf, signWrit, type WritBody } from '../src/core/writs/index.ts';

const POLICY = `default: deny
rules:
  - {id: no-destructive, match: {destructive: true}, outcome: deny}
  - {id: no-external, match: {effect: external}, outcome: require_approval}
  - {id: night-big, match: {tool: [step_a, step_b, step_c]}, when: args.n > 100 and clock.hour >= 22, outcome: deny}
  - {id: bench-steps, match: {tool: [step_a, step_b, step_c]}, outcome: allow}
`;

export function governedBench(tenant = 'bench'): Pick<KeelConfig, 'policies' | 'trustedKeys'> & {
  writ: NonNullable<StartOptions['writ']>;
} {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const issuer = keyIdOf(publicKey);
  const root: WritBody = {
    v: 1,
    id: 'bench-root',
    tenant,
    subject: 'bench',
    issuer,
    parent: null,
    scopes: ['step_a', 'step_b', 'step_c'],
    // Shared by every bench run under the writ (a writ's budget counts across runs): room for all of them.
    budget: { cents: 1_000_000, steps: 1_000_000_000, calls: 1_000_000_000 },
    window: { notBefore: '2020-01-01T00:00:00Z', notAfter: '2100-01-01T00:00:00Z' },
    effectCeiling: { max: 'write', destructive: false },
    delegation: { maxDepth: 2, maySubdivide: true },
    depth: 0,
  };
  const child = attenuate(root, { id: 'bench-child', subject: 'bench-run', issuer }, root.budget);
  if (!child.ok) throw new Error(`bench writ: ${child.violations[0]!.message}`);
  const chain = [signWrit(root, privateKey), signWrit(child.body, privateKey)];
  return {
    policies: { [tenant]: parsePolicy(POLICY, 'bench-policy.yaml') },
    trustedKeys: { [tenant]: [publicKey] },
    writ: { chain },
  };
}
