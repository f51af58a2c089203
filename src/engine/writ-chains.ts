/**
 * Writ chains by content: a run's root names its writ by hash, and the chain (root first) lives in
 * the store once per tenant and writ (Keys.putWritChain), as a spec lives once under its hash.
 * Many runs under one writ then record ~90 bytes each instead of the whole chain.
 *
 * The leaf's hash covers its body, which names its parent's hash, and so on to the root: the hash
 * in a run's root pins every body of the chain. Signatures are verified wherever the chain is used
 * (checkWrit), so a chain read back from the store is trusted for nothing it does not prove.
 */
import { type Digest, freezeCanonical } from '../core/canonical/index.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';
import type { RunWrit } from '../core/ledger/index.ts';
import { type SignedWrit, writHash } from '../core/writs/index.ts';
import type { Keys } from '../ports/index.ts';
import type { AdmittedWrit } from './governance.ts';

/** Chains this process stored or read, per store handle: a walk under a known writ reads nothing. */
const MAX_KNOWN = 1024;

/** A chain this process has, with the (frozen, encoded once) reference a run's root records. */
interface Known {
  readonly chain: readonly SignedWrit[];
  readonly ref: RunWrit;
}

export class WritChains {
  /** By tenant, then writ hash (no key strings built per run). */
  private readonly known = new Map<string, Map<Digest, Known>>();
  private size = 0;

  constructor(private readonly keys: Keys) {}

  /** Makes the admitted chain durable in the store (once per writ and process); what the root records. */
  async record(tenant: string, w: AdmittedWrit): Promise<RunWrit> {
    const known = this.known.get(tenant)?.get(w.hash);
    if (known) return known.ref;
    await this.keys.putWritChain(tenant, w.hash, w.canonical);
    return this.remember(tenant, w.hash, w.chain).ref;
  }

  /** The chain a run's root names. A hash the store has no chain for is a broken store: ledger_invalid. */
  async chainOf(tenant: string, hash: Digest): Promise<readonly SignedWrit[]> {
    const known = this.known.get(tenant)?.get(hash);
    if (known) return known.chain;
    const text = await this.keys.getWritChain(tenant, hash);
    const chain = text === undefined ? undefined : parseChain(text);
    if (!chain || leafHash(chain) !== hash)
      throw new KeelError(
        ErrorCode.ledgerInvalid,
        text === undefined
          ? `writ ${hash} is named by a run's root, but its chain is not in this store`
          : `the chain stored for writ ${hash} does not end in that writ`,
        { writ: hash },
      );
    return this.remember(tenant, hash, chain).chain;
  }

  private remember(tenant: string, hash: Digest, chain: readonly SignedWrit[]): Known {
    if (this.size >= MAX_KNOWN) {
      this.known.clear();
      this.size = 0;
    }
    let byHash = this.known.get(tenant);
    if (!byHash) {
      byHash = new Map();
      this.known.set(tenant, byHash);
    }
    const known = { chain, ref: freezeCanonical({ hash }) };
    if (!byHash.has(hash)) this.size++;
    byHash.set(hash, known);
    return known;
  }
}

/** The hash of the chain's last writ; undefined for an empty chain or a body with no canonical form. */
function leafHash(chain: readonly SignedWrit[]): string | undefined {
  const leaf = chain[chain.length - 1];
  try {
    return leaf && writHash(leaf);
  } catch {
    return undefined;
  }
}

function parseChain(text: string): SignedWrit[] | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) && v.every((w) => typeof w === 'object' && w !== null && 'body' in w)
      ? (v as SignedWrit[])
      : undefined;
  } catch {
    return undefined;
  }
}
