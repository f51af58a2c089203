/**
 * `keel migrate`: applies pending schema migrations to the selected store (a postgres:// URL, or
 * a SQLite file) and prints the schema version. Safe to run while other processes migrate or use
 * the same database; it changes nothing when the schema is current. It creates the store when it
 * is missing, and says so on stderr.
 */
import pc from 'picocolors';
import { migrateStore } from '../app/index.ts';
import { type GlobalOptions, storeTarget } from './context.ts';
import { EXIT } from './exit-codes.ts';
import { line, printJson } from './output.ts';

export async function runMigrate(g: GlobalOptions): Promise<number> {
  const r = await migrateStore(storeTarget(g));
  if (g.json === true) {
    printJson(r);
    return EXIT.ok;
  }
  const where = r.schema === undefined ? r.store : `${r.store} (schema ${r.schema})`;
  if (r.created) process.stderr.write(`created store ${r.store}\n`);
  if (r.applied === undefined) line(`${where}: schema version ${r.version}`);
  else if (r.applied.length === 0) line(`${where}: schema version ${r.version}, up to date`);
  else
    line(
      `${where}: schema version ${r.from} -> ${pc.green(String(r.version))} (applied ${r.applied.join(', ')})`,
    );
  return EXIT.ok;
}
