/**
 * The statements both stores use for a tenant's secret-hashing key (`Keys.secretKey`):
 * insert-or-nothing, then read, so the first key stored for a tenant is the one every process
 * gets. Placeholders are written `$n` (SQLite binds them through `sqliteStatement`).
 */
export const SECRET_KEY_SQL = {
  put: 'INSERT INTO tenant_secret_keys (tenant, key) VALUES ($1, $2) ON CONFLICT (tenant) DO NOTHING',
  get: 'SELECT key FROM tenant_secret_keys WHERE tenant = $1',
} as const;

/** A candidate key must be 32 bytes; anything else is a programming error, refused before any write. */
export function checkSecretKeyCandidate(candidate: Uint8Array): Buffer {
  if (candidate.length !== 32) throw new RangeError(`a secret key is 32 bytes, got ${candidate.length}`);
  return Buffer.from(candidate);
}
