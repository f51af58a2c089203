/**
 * Telling a PostgreSQL URL from a SQLite path, and printing one without its password. Kept apart
 * from connection.ts so choosing a store (the CLI parses --store before anything opens) never loads
 * the pg driver.
 */

export function isPostgresUrl(target: string): boolean {
  return /^postgres(ql)?:\/\//i.test(target);
}

export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
  }
}
