/**
 * Keyed hashes of secret env values: what a draw records instead of the value, and the check a
 * call makes that the value it is about to hand a tool is the one the run recorded.
 *
 * The key is the tenant's own (`Keys.secretKey`: made on first use, kept in the store, never in a
 * ledger), so a reader of a ledger alone cannot confirm a guessed value offline. Ledgers written
 * before keyed hashes hold the plain SHA-256 (`sha256:<hex>`) and are still checked as such. Never
 * writes a ledger and never sees a clear value it is not asked about.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalize, hashOf } from '../core/canonical/index.ts';

/** The prefix of a keyed secret hash; a plain one (older ledgers) starts with `sha256:`. */
export const KEYED_SECRET_PREFIX = 'hmac-sha256:';
const PLAIN_SECRET_PREFIX = 'sha256:';

export class SecretHasher {
  private readonly keys = new Map<string, Uint8Array>();

  /** `keyOf`: the tenant's key, read (or made) once per tenant and process. */
  constructor(private readonly keyOf: (tenant: string) => Promise<Uint8Array>) {}

  /** Reads the tenant's key so that `hash` can answer synchronously (a walk draws synchronously). */
  async load(tenant: string): Promise<void> {
    if (!this.keys.has(tenant)) this.keys.set(tenant, await this.keyOf(tenant));
  }

  /** `hmac-sha256:<hex>` of the value's canonical form under the tenant's key (`load` first). */
  hash(tenant: string, value: string | null): string {
    const key = this.keys.get(tenant);
    if (!key) throw new Error(`the secret key of tenant ${tenant} was not loaded before a secret was drawn`);
    return `${KEYED_SECRET_PREFIX}${createHmac('sha256', key).update(canonicalize(value)).digest('hex')}`;
  }

  /**
   * Whether `value` is the value `recorded` was made from: a keyed hash under the tenant's key, or
   * the plain SHA-256 an older ledger holds. A recorded form this Keel does not know never matches.
   */
  async matches(tenant: string, value: string | null, recorded: string): Promise<boolean> {
    let now: string;
    if (recorded.startsWith(KEYED_SECRET_PREFIX)) {
      await this.load(tenant);
      now = this.hash(tenant, value);
    } else if (recorded.startsWith(PLAIN_SECRET_PREFIX)) {
      now = hashOf(value);
    } else {
      return false;
    }
    const a = Buffer.from(now);
    const b = Buffer.from(recorded);
    return a.length === b.length && timingSafeEqual(a, b);
  }
}
