/**
 * Trusted writ key and writ revocation rows (SQLite and PostgreSQL alike) to the ports'
 * records, and the statements both stores share (placeholders written `$n`; SQLite binds them by
 * position through `sqliteParams`). Pure mapping: nothing here queries.
 */
import type { Digest } from '../../core/canonical/index.ts';
import type { TrustedKeyRecord, WritRevocation } from '../../ports/index.ts';
import type { Row } from './row.ts';

const KEY_COLUMNS = 'tenant, key_id, public_key_pem, added_by, added_at, retired_at';
const REVOCATION_COLUMNS = 'tenant, hash, by, at, reason';

export const WRIT_TRUST_SQL = {
  addKey: `INSERT INTO writ_keys (tenant, key_id, public_key_pem, added_by, added_at)
    VALUES ($1, $2, $3, $4, $5) ON CONFLICT (tenant, key_id) DO NOTHING`,
  getKey: `SELECT ${KEY_COLUMNS} FROM writ_keys WHERE tenant = $1 AND key_id = $2`,
  listKeys: `SELECT ${KEY_COLUMNS} FROM writ_keys WHERE tenant = $1 ORDER BY added_at, key_id`,
  retireKey: 'UPDATE writ_keys SET retired_at = coalesce(retired_at, $3) WHERE tenant = $1 AND key_id = $2',
  revoke: `INSERT INTO writ_revocations (tenant, hash, by, at, reason)
    VALUES ($1, $2, $3, $4, $5) ON CONFLICT (tenant, hash) DO NOTHING`,
  getRevocation: `SELECT ${REVOCATION_COLUMNS} FROM writ_revocations WHERE tenant = $1 AND hash = $2`,
  listRevocations: `SELECT ${REVOCATION_COLUMNS} FROM writ_revocations WHERE tenant = $1 ORDER BY at, hash`,
  putChain: `INSERT INTO writ_chains (tenant, hash, chain) VALUES ($1, $2, $3)
    ON CONFLICT (tenant, hash) DO NOTHING`,
  getChain: 'SELECT chain FROM writ_chains WHERE tenant = $1 AND hash = $2',
} as const;

/**
 * A `$n` statement for SQLite: each `$n` becomes `?`, and `order` says which value (0-based) each
 * `?` binds, so the same values array serves both stores.
 */
export function sqliteStatement(sql: string): { readonly sql: string; readonly order: readonly number[] } {
  const order: number[] = [];
  const text = sql.replace(/\$(\d+)/g, (_, n: string) => {
    order.push(Number(n) - 1);
    return '?';
  });
  return { sql: text, order };
}

export function toTrustedKey(r: Row): TrustedKeyRecord {
  const retiredAt = r.retired_at as string | null | undefined;
  return {
    tenant: r.tenant as string,
    keyId: r.key_id as Digest,
    publicKeyPem: r.public_key_pem as string,
    addedBy: r.added_by as string,
    addedAt: r.added_at as string,
    ...(retiredAt === null || retiredAt === undefined ? {} : { retiredAt }),
  };
}

export function toRevocation(r: Row): WritRevocation {
  const reason = r.reason as string | null | undefined;
  return {
    tenant: r.tenant as string,
    hash: r.hash as Digest,
    by: r.by as string,
    at: r.at as string,
    ...(reason === null || reason === undefined ? {} : { reason }),
  };
}
