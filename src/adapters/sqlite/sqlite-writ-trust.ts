/**
 * A tenant's trusted writ keys and revoked writs in the SQLite file. Adding a key or revoking a
 * writ that is already there changes nothing and answers the stored row (one IMMEDIATE
 * transaction: insert-or-nothing, then read). Rows are retired, never deleted.
 */
import type Database from 'better-sqlite3';
import type { TrustedKeyRecord, WritRevocation } from '../../ports/index.ts';
import { toRevocation, toTrustedKey, WRIT_TRUST_SQL } from '../shared/writ-trust-rows.ts';
import { type BoundStatements, boundStatements } from './bound-statements.ts';

export class SqliteWritTrust {
  readonly addKey: (rec: Omit<TrustedKeyRecord, 'retiredAt'>) => {
    created: boolean;
    record: TrustedKeyRecord;
  };
  readonly revoke: (rec: WritRevocation) => { created: boolean; record: WritRevocation };
  private readonly run: BoundStatements<keyof typeof WRIT_TRUST_SQL>['run'];
  private readonly all: BoundStatements<keyof typeof WRIT_TRUST_SQL>['all'];

  constructor(db: Database.Database) {
    const st = boundStatements(db, WRIT_TRUST_SQL);
    this.run = st.run;
    this.all = st.all;
    this.addKey = db.transaction((rec: Omit<TrustedKeyRecord, 'retiredAt'>) => {
      const created =
        this.run('addKey', [rec.tenant, rec.keyId, rec.publicKeyPem, rec.addedBy, rec.addedAt]).changes === 1;
      return { created, record: toTrustedKey(this.all('getKey', [rec.tenant, rec.keyId])[0]!) };
    }).immediate;
    this.revoke = db.transaction((rec: WritRevocation) => {
      const created =
        this.run('revoke', [rec.tenant, rec.hash, rec.by, rec.at, rec.reason ?? null]).changes === 1;
      return { created, record: toRevocation(this.all('getRevocation', [rec.tenant, rec.hash])[0]!) };
    }).immediate;
  }

  listKeys(tenant: string): TrustedKeyRecord[] {
    return this.all('listKeys', [tenant]).map(toTrustedKey);
  }

  retireKey(tenant: string, keyId: string, at: string): boolean {
    return this.run('retireKey', [tenant, keyId, at]).changes === 1;
  }

  listRevocations(tenant: string): WritRevocation[] {
    return this.all('listRevocations', [tenant]).map(toRevocation);
  }

  /** True when the chain was new (a row written). */
  putChain(tenant: string, hash: string, chain: string): boolean {
    return this.run('putChain', [tenant, hash, chain]).changes === 1;
  }

  getChain(tenant: string, hash: string): string | undefined {
    return this.all('getChain', [tenant, hash])[0]?.chain as string | undefined;
  }
}
