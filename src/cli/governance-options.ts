/**
 * The governance a CLI invocation runs under: `--policy <file>` (env KEEL_POLICY) is the policy of
 * the command's tenant, `--trust-keys <public.pem>` (env KEEL_TRUST, paths separated by the platform's
 * path delimiter) the keys that tenant trusts to sign writs. Both are global, so `approve`,
 * `resume`, `replay` and `worker` judge a run as `emit` and `run` did (--trust-keys takes one value,
 * several files joined by the path delimiter, so it cannot swallow the command after it). Files are read once, here;
 * a bad file is a usage or policy error naming the file and the field.
 */
import { delimiter } from 'node:path';
import type { KeelConfig } from '../app/index.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';
import { intOption, readText } from './input.ts';
import { readChain, readKey } from './writ-files.ts';

export interface GovernanceOptions {
  /** A policy file (YAML or JSON) for the command's tenant (env KEEL_POLICY). */
  readonly policy?: string;
  /** Public key files trusted to sign the tenant's writs, path-delimited (env KEEL_TRUST). */
  readonly trustKeys?: string;
  /** Promotion gate thresholds for the command's tenant (env KEEL_GATES). */
  readonly gates?: string;
  /** Shadow runs a tenant may have running at once (env KEEL_MAX_SHADOW_RUNS). */
  readonly maxShadowRuns?: string;
}

function fromEnv(name: string): string | undefined {
  const v = process.env[name];
  return v === undefined || v.trim() === '' ? undefined : v;
}

/** `--gates <file>` and `--max-shadow-runs <n>` (or their env): the lifecycle's settings for the tenant. */
export async function lifecycleConfigFor(
  o: GovernanceOptions,
  tenant: string,
): Promise<Pick<KeelConfig, 'promotionGates' | 'maxShadowRuns'>> {
  const gatesFile = o.gates ?? fromEnv('KEEL_GATES');
  const limit = o.maxShadowRuns ?? fromEnv('KEEL_MAX_SHADOW_RUNS');
  const { parseGates } = await import('../core/spec/index.ts');
  return {
    ...(gatesFile !== undefined
      ? { promotionGates: { [tenant]: parseGates(readText(gatesFile, 'gates'), gatesFile) } }
      : {}),
    ...(limit !== undefined ? { maxShadowRuns: intOption(limit, '--max-shadow-runs', 0) } : {}),
  };
}

/** The public key files of --trust-keys (env KEEL_TRUST), path-delimited; none when not given. */
export function trustKeyFiles(o: Pick<GovernanceOptions, 'trustKeys'>): string[] {
  return (o.trustKeys ?? fromEnv('KEEL_TRUST'))?.split(delimiter).filter((p) => p !== '') ?? [];
}

export async function governanceConfigFor(
  o: GovernanceOptions,
  tenant: string,
): Promise<Pick<KeelConfig, 'policies' | 'trustedKeys'>> {
  const policyFile = o.policy ?? fromEnv('KEEL_POLICY');
  if (policyFile !== undefined && policyFile.trim() === '')
    throw new KeelError(ErrorCode.usage, '--policy: expected a file path', { field: 'policy' });
  const trustFiles = trustKeyFiles(o);
  // The policy language (and its YAML parser) loads only when a policy is given.
  const parsePolicy =
    policyFile === undefined ? undefined : (await import('../core/policy/index.ts')).parsePolicy;
  return {
    ...(policyFile !== undefined && parsePolicy
      ? { policies: { [tenant]: parsePolicy(readText(policyFile, 'policy'), policyFile) } }
      : {}),
    ...(trustFiles.length > 0
      ? { trustedKeys: { [tenant]: trustFiles.map((f) => readKey(f, 'public')) } }
      : {}),
  };
}

/** `--writ <file>`: the writ file `keel writs issue | attenuate` wrote, `{chain: [root, ..., writ]}`. */
export function writOption(file: string | undefined): { writ?: { chain: readonly unknown[] } } {
  return file === undefined ? {} : { writ: { chain: readChain(file) } };
}
