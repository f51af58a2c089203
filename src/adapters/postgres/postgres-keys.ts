/**
 * Keys in PostgreSQL: API keys for `keel serve` (never their hash out of this module), each
 * tenant's trusted writ keys and revoked writs (adding one already there answers the stored
 * row), the writ chains runs name, and each tenant's secret key (stored once, never changed).
 */
import type { ApiKeyInfo, ApiKeyRecord, Keys, TrustedKeyRecord, WritRevocation } from '../../ports/index.ts';
import { toApiKeyInfo } from '../shared/keys-idempotency-rows.ts';
import { checkSecretKeyCandidate, SECRET_KEY_SQL } from '../shared/secret-key-rows.ts';
import { toRevocation, toTrustedKey, WRIT_TRUST_SQL as WT } from '../shared/writ-trust-rows.ts';
import { KEYS_SQL } from './keys-idempotency.ts';
import type { PostgresHandle } from './postgres-handle.ts';

export class PostgresKeys implements Keys {
  constructor(private readonly h: PostgresHandle) {}

  async putApiKey(rec: ApiKeyRecord): Promise<void> {
    await this.h.write('keel_put_key', KEYS_SQL.putKey, [
      rec.keyId,
      rec.tenant,
      rec.subject,
      rec.hash,
      rec.createdAt,
      rec.kind,
    ]);
  }

  async findApiKey(hash: string): Promise<ApiKeyInfo | undefined> {
    const r = await this.h.query({ name: 'keel_find_key', text: KEYS_SQL.findKey, values: [hash] });
    return r.rows[0] ? toApiKeyInfo(r.rows[0]) : undefined;
  }

  async listApiKeys(tenant: string): Promise<ApiKeyInfo[]> {
    const r = await this.h.query({ name: 'keel_list_keys', text: KEYS_SQL.listKeys, values: [tenant] });
    return r.rows.map(toApiKeyInfo);
  }

  async revokeApiKey(tenant: string, keyId: string, at: string): Promise<boolean> {
    return (await this.h.write('keel_revoke_key', KEYS_SQL.revokeKey, [tenant, keyId, at])).rowCount === 1;
  }

  async addTrustedKey(
    rec: Omit<TrustedKeyRecord, 'retiredAt'>,
  ): Promise<{ created: boolean; record: TrustedKeyRecord }> {
    const values = [rec.tenant, rec.keyId, rec.publicKeyPem, rec.addedBy, rec.addedAt];
    const created = (await this.h.write('keel_writ_key_add', WT.addKey, values)).rowCount === 1;
    const r = await this.h.query({
      name: 'keel_writ_key_get',
      text: WT.getKey,
      values: [rec.tenant, rec.keyId],
    });
    return { created, record: toTrustedKey(r.rows[0]!) };
  }

  async listTrustedKeys(tenant: string): Promise<TrustedKeyRecord[]> {
    const r = await this.h.query({ name: 'keel_writ_key_list', text: WT.listKeys, values: [tenant] });
    return r.rows.map(toTrustedKey);
  }

  async retireTrustedKey(tenant: string, keyId: string, at: string): Promise<boolean> {
    return (await this.h.write('keel_writ_key_retire', WT.retireKey, [tenant, keyId, at])).rowCount === 1;
  }

  async revokeWrit(rec: WritRevocation): Promise<{ created: boolean; record: WritRevocation }> {
    const values = [rec.tenant, rec.hash, rec.by, rec.at, rec.reason ?? null];
    const created = (await this.h.write('keel_writ_revoke', WT.revoke, values)).rowCount === 1;
    const r = await this.h.query({
      name: 'keel_writ_revocation_get',
      text: WT.getRevocation,
      values: [rec.tenant, rec.hash],
    });
    return { created, record: toRevocation(r.rows[0]!) };
  }

  async listRevokedWrits(tenant: string): Promise<WritRevocation[]> {
    const r = await this.h.query({
      name: 'keel_writ_revocation_list',
      text: WT.listRevocations,
      values: [tenant],
    });
    return r.rows.map(toRevocation);
  }

  async putWritChain(tenant: string, hash: string, chain: string): Promise<void> {
    await this.h.write('keel_writ_chain_put', WT.putChain, [tenant, hash, chain]);
  }

  async getWritChain(tenant: string, hash: string): Promise<string | undefined> {
    const r = await this.h.query({ name: 'keel_writ_chain_get', text: WT.getChain, values: [tenant, hash] });
    return r.rows[0]?.chain as string | undefined;
  }

  async secretKey(tenant: string, candidate: Uint8Array): Promise<Uint8Array> {
    const fresh = checkSecretKeyCandidate(candidate);
    const read = async () =>
      (await this.h.query({ name: 'keel_secret_key_get', text: SECRET_KEY_SQL.get, values: [tenant] }))
        .rows[0]?.key as Buffer | undefined;
    const stored = await read();
    if (stored) return new Uint8Array(stored);
    await this.h.write('keel_secret_key_put', SECRET_KEY_SQL.put, [tenant, fresh]);
    return new Uint8Array((await read())!);
  }
}
