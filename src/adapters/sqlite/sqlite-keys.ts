/**
 * Keys in the SQLite file: API keys for `keel serve` (rows leave this module without their hash),
 * each tenant's trusted writ keys and revoked writs (sqlite-writ-trust.ts), the writ chains runs
 * name, and each tenant's secret key (stored once, never changed).
 */
import type Database from 'better-sqlite3';
import type { ApiKeyInfo, ApiKeyRecord, Keys, TrustedKeyRecord, WritRevocation } from '../../ports/index.ts';
import { API_KEY_COLUMNS, toApiKeyInfo } from '../shared/keys-idempotency-rows.ts';
import type { Row } from '../shared/row.ts';
import { checkSecretKeyCandidate, SECRET_KEY_SQL } from '../shared/secret-key-rows.ts';
import { sqliteStatement } from '../shared/writ-trust-rows.ts';
import { io, type SqliteHandle } from './sqlite-handle.ts';
import { SqliteWritTrust } from './sqlite-writ-trust.ts';

export class SqliteKeys implements Keys {
  private readonly st;
  private readonly writTrust: SqliteWritTrust;

  constructor(private readonly h: SqliteHandle) {
    const db: Database.Database = h.db;
    this.st = {
      putKey: db.prepare(
        'INSERT INTO api_keys (key_id, tenant, subject, hash, created_at, kind) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      findKey: db.prepare(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE hash = ?`),
      listKeys: db.prepare(
        `SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE tenant = ? ORDER BY created_at, key_id`,
      ),
      revokeKey: db.prepare(
        'UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE tenant = ? AND key_id = ?',
      ),
      getSecretKey: db.prepare(sqliteStatement(SECRET_KEY_SQL.get).sql),
      putSecretKey: db.prepare(sqliteStatement(SECRET_KEY_SQL.put).sql),
    };
    this.writTrust = new SqliteWritTrust(db);
  }

  async putApiKey(rec: ApiKeyRecord): Promise<void> {
    io('storing an API key', () =>
      this.st.putKey.run(rec.keyId, rec.tenant, rec.subject, rec.hash, rec.createdAt, rec.kind),
    );
    this.h.commits++;
  }

  async findApiKey(hash: string): Promise<ApiKeyInfo | undefined> {
    return io('looking up an API key', () => {
      const row = this.st.findKey.get(hash) as Row | undefined;
      return row ? toApiKeyInfo(row) : undefined;
    });
  }

  async listApiKeys(tenant: string): Promise<ApiKeyInfo[]> {
    return io('listing API keys', () => (this.st.listKeys.all(tenant) as Row[]).map(toApiKeyInfo));
  }

  async revokeApiKey(tenant: string, keyId: string, at: string): Promise<boolean> {
    const revoked = io('revoking an API key', () => this.st.revokeKey.run(at, tenant, keyId).changes === 1);
    this.h.commits++;
    return revoked;
  }

  async addTrustedKey(
    rec: Omit<TrustedKeyRecord, 'retiredAt'>,
  ): Promise<{ created: boolean; record: TrustedKeyRecord }> {
    const r = io('storing a trusted writ key', () => this.writTrust.addKey(rec));
    this.h.commits++;
    return r;
  }

  async listTrustedKeys(tenant: string): Promise<TrustedKeyRecord[]> {
    return io('listing trusted writ keys', () => this.writTrust.listKeys(tenant));
  }

  async retireTrustedKey(tenant: string, keyId: string, at: string): Promise<boolean> {
    const retired = io('retiring a trusted writ key', () => this.writTrust.retireKey(tenant, keyId, at));
    this.h.commits++;
    return retired;
  }

  async revokeWrit(rec: WritRevocation): Promise<{ created: boolean; record: WritRevocation }> {
    const r = io('revoking a writ', () => this.writTrust.revoke(rec));
    this.h.commits++;
    return r;
  }

  async listRevokedWrits(tenant: string): Promise<WritRevocation[]> {
    return io('listing revoked writs', () => this.writTrust.listRevocations(tenant));
  }

  async putWritChain(tenant: string, hash: string, chain: string): Promise<void> {
    if (io('storing a writ chain', () => this.writTrust.putChain(tenant, hash, chain))) this.h.commits++;
  }

  async getWritChain(tenant: string, hash: string): Promise<string | undefined> {
    return io('reading a writ chain', () => this.chainOf(tenant, hash));
  }

  /** getWritChain, synchronously (an append's budget change reads the chain inside its savepoint). */
  chainOf(tenant: string, hash: string): string | undefined {
    return this.writTrust.getChain(tenant, hash);
  }

  async secretKey(tenant: string, candidate: Uint8Array): Promise<Uint8Array> {
    const fresh = checkSecretKeyCandidate(candidate);
    return io('reading the tenant secret key', () => {
      const stored = this.st.getSecretKey.get(tenant) as { key: Buffer } | undefined;
      if (stored) return new Uint8Array(stored.key);
      if (this.st.putSecretKey.run(tenant, fresh).changes === 1) this.h.commits++;
      return new Uint8Array((this.st.getSecretKey.get(tenant) as { key: Buffer }).key);
    });
  }
}
