/**
 * LISTEN on one PostgreSQL channel over a dedicated connection (never a pooled one): each
 * notification's payload goes to `onPayload`; `onConnected` runs once the connection listens,
 * first and after every reconnection, so the caller can look for what it may have missed. A
 * dropped connection is re-established after a second. It never reads or writes Keel's tables.
 */
import pg from 'pg';
import type { PostgresTarget } from './connection.ts';

export async function listenChannel(
  target: PostgresTarget,
  channel: string,
  onPayload: (payload: string) => void,
  onConnected: () => void,
): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const schedule = () => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      connect().catch(schedule);
    }, 1000);
  };
  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: target.connectionString, application_name: 'keel-listen' });
    let dropped = false;
    const drop = () => {
      if (dropped) return;
      dropped = true;
      if (client === c) client = undefined;
      c.end().catch(() => {});
      schedule();
    };
    c.on('error', drop);
    c.on('end', drop);
    c.on('notification', (m) => {
      if (m.channel === channel) onPayload(m.payload ?? '');
    });
    client = c;
    try {
      await c.connect();
      await c.query(`LISTEN ${channel}`);
    } catch (e) {
      dropped = true;
      if (client === c) client = undefined;
      c.end().catch(() => {});
      throw e;
    }
    if (stopped) {
      await c.end().catch(() => {});
      return;
    }
    onConnected();
  };
  await connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    const c = client;
    client = undefined;
    await c?.end().catch(() => {});
  };
}
