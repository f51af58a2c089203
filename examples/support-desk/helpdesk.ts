/**
 * A small, real helpdesk: tickets, replies and refunds in their own SQLite file. It stands in for
 * the system a support team's tools act on. Every write is keyed by the idempotency key Keel
 * hands the tool, so a repeated call returns the first result instead of acting twice, and every
 * handler call is counted from the helpdesk's own side (`calls`), which is what tests assert on.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

export interface Ticket {
  readonly id: string;
  readonly customer: string;
  readonly status: 'open' | 'closed';
  readonly tags: readonly string[];
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS tickets (id TEXT PRIMARY KEY, customer TEXT NOT NULL, status TEXT NOT NULL, tags TEXT NOT NULL DEFAULT '[]');
CREATE TABLE IF NOT EXISTS replies (id TEXT PRIMARY KEY, ticket_id TEXT NOT NULL, body TEXT NOT NULL, idempotency_key TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS refunds (id TEXT PRIMARY KEY, ticket_id TEXT NOT NULL, amount_cents INTEGER NOT NULL, idempotency_key TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS calls (id INTEGER PRIMARY KEY, tool TEXT NOT NULL, idempotency_key TEXT NOT NULL);
`;

export const SEED_TICKETS: readonly Ticket[] = [
  { id: 'T-1001', customer: 'ada@example.com', status: 'open', tags: [] },
  { id: 'T-1002', customer: 'grace@example.com', status: 'open', tags: [] },
  { id: 'T-1003', customer: 'edsger@example.com', status: 'open', tags: [] },
  { id: 'T-1004', customer: 'barbara@example.com', status: 'open', tags: [] },
  { id: 'T-1005', customer: 'alan@example.com', status: 'open', tags: [] },
];

export interface HelpdeskOptions {
  /**
   * The most the payment provider refunds in one go, in cents; a larger refund is refused by the
   * provider (the tool fails). None by default. The lifecycle demo uses it: a simulated refund
   * cannot know it, a live one finds out.
   */
  readonly refundLimitCents?: number;
}

export class Helpdesk {
  private readonly db: Database.Database;
  private readonly refundLimitCents: number | undefined;

  constructor(path: string, o: HelpdeskOptions = {}) {
    this.refundLimitCents = o.refundLimitCents;
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    const insert = this.db.prepare(
      'INSERT OR IGNORE INTO tickets (id, customer, status, tags) VALUES (?, ?, ?, ?)',
    );
    for (const t of SEED_TICKETS) insert.run(t.id, t.customer, t.status, JSON.stringify(t.tags));
  }

  ticket(id: string): Ticket {
    const row = this.db.prepare('SELECT * FROM tickets WHERE id = ?').get(id) as
      | Record<string, string>
      | undefined;
    if (!row) throw Object.assign(new Error(`ticket ${id} not found`), { code: 'ticket_not_found' });
    return {
      id: row.id!,
      customer: row.customer!,
      status: row.status as Ticket['status'],
      tags: JSON.parse(row.tags!),
    };
  }

  /** Counts one handler call, whatever it then does. */
  recordCall(tool: string, idempotencyKey: string): void {
    this.db.prepare('INSERT INTO calls (tool, idempotency_key) VALUES (?, ?)').run(tool, idempotencyKey);
  }

  calls(tool?: string): number {
    const row = (
      tool === undefined
        ? this.db.prepare('SELECT count(*) AS n FROM calls').get()
        : this.db.prepare('SELECT count(*) AS n FROM calls WHERE tool = ?').get(tool)
    ) as { n: number };
    return row.n;
  }

  addReply(ticketId: string, body: string, key: string): { reply_id: string; ticket_id: string } {
    this.ticket(ticketId);
    const id = `rp_${key.slice(-12)}`;
    this.db
      .prepare('INSERT OR IGNORE INTO replies (id, ticket_id, body, idempotency_key) VALUES (?, ?, ?, ?)')
      .run(id, ticketId, body, key);
    const row = this.db.prepare('SELECT id FROM replies WHERE idempotency_key = ?').get(key) as {
      id: string;
    };
    return { reply_id: row.id, ticket_id: ticketId };
  }

  refund(
    ticketId: string,
    amountCents: number,
    key: string,
  ): { refund_id: string; ticket_id: string; amount_cents: number } {
    this.ticket(ticketId);
    if (this.refundLimitCents !== undefined && amountCents > this.refundLimitCents)
      throw Object.assign(
        new Error(
          `the payment provider refuses refunds over $${(this.refundLimitCents / 100).toFixed(2)} without a manager's card`,
        ),
        { code: 'refund_limit' },
      );
    const id = `rf_${key.slice(-12)}`;
    this.db
      .prepare(
        'INSERT OR IGNORE INTO refunds (id, ticket_id, amount_cents, idempotency_key) VALUES (?, ?, ?, ?)',
      )
      .run(id, ticketId, amountCents, key);
    const row = this.db
      .prepare('SELECT id, amount_cents FROM refunds WHERE idempotency_key = ?')
      .get(key) as {
      id: string;
      amount_cents: number;
    };
    return { refund_id: row.id, ticket_id: ticketId, amount_cents: row.amount_cents };
  }

  refunds(ticketId?: string): { id: string; ticket_id: string; amount_cents: number }[] {
    return (
      ticketId === undefined
        ? this.db.prepare('SELECT id, ticket_id, amount_cents FROM refunds ORDER BY id').all()
        : this.db
            .prepare('SELECT id, ticket_id, amount_cents FROM refunds WHERE ticket_id = ? ORDER BY id')
            .all(ticketId)
    ) as { id: string; ticket_id: string; amount_cents: number }[];
  }

  tag(ticketId: string, tag: string): Ticket {
    const t = this.ticket(ticketId);
    if (!t.tags.includes(tag)) {
      this.db
        .prepare('UPDATE tickets SET tags = ? WHERE id = ?')
        .run(JSON.stringify([...t.tags, tag]), ticketId);
    }
    return this.ticket(ticketId);
  }

  close(ticketId: string): Ticket {
    this.ticket(ticketId);
    this.db.prepare(`UPDATE tickets SET status = 'closed' WHERE id = ?`).run(ticketId);
    return this.ticket(ticketId);
  }

  /** Opens a ticket (or leaves an existing one as it is). */
  openTicket(id: string, customer: string): Ticket {
    this.db
      .prepare('INSERT OR IGNORE INTO tickets (id, customer, status, tags) VALUES (?, ?, ?, ?)')
      .run(id, customer, 'open', '[]');
    return this.ticket(id);
  }

  shutdown(): void {
    this.db.close();
  }
}
