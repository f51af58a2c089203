/**
 * Secrets read from the environment: which variable names hold secrets by default, and the
 * reference a secret value becomes in a run's ledger and a proposal's arguments.
 *
 * A secret's clear value never enters a ledger: a draw records `{"$secret": <keyed hash>, "env":
 * NAME}` and only the tool call sees the value (engine/effects.ts). So a secret can be a whole
 * argument value, never a part of a text (check-steps.ts refuses that at validate time).
 */

/** Environment names whose values are secrets by default: never ledgered in clear. */
export const SECRET_ENV =
  /SECRET|TOKEN|PASSW|PASSPHRASE|API_?KEY|PRIVATE|CREDENTIAL|AUTHORIZATION|(^|_)(KEY|O?AUTH|DSN)(_|$)|DATABASE_URL|CONNECTION_STRING/i;

export function isSecretEnvName(name: string): boolean {
  return SECRET_ENV.test(name);
}

/**
 * What a secret env value is recorded as. `$secret` is `hmac-sha256:<hex>`, an HMAC of the value's
 * canonical form under the tenant's secret key (kept in the store, never in a ledger); ledgers
 * written before keyed hashes hold `sha256:<hex>`, the plain hash, and are still read.
 */
export interface SecretRef {
  readonly $secret: string;
  readonly env: string;
}

export function isSecretRef(v: unknown): v is SecretRef {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const keys = Object.keys(v);
  return (
    keys.length === 2 &&
    typeof (v as SecretRef).$secret === 'string' &&
    typeof (v as SecretRef).env === 'string'
  );
}
