/**
 * Naming a store target without opening it: whether it is a PostgreSQL URL, and how it may be
 * printed (a URL's password replaced by `***`). Loads no driver, so the CLI can parse --store
 * before deciding what to open.
 */
import { isPostgresUrl, redactUrl } from '../adapters/postgres/postgres-url.ts';

export { isPostgresUrl };

/** The target as it may be printed (a URL's password replaced by `***`). */
export function describeStoreTarget(target: string): string {
  return isPostgresUrl(target) ? redactUrl(target) : target;
}
