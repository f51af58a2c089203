/**
 * A property of taking arrivals (ports/event-waits.ts), on a real SQLite file with two handles: for
 * any arrivals and any takes by any run steps, issued concurrently in any order, an arrival is
 * taken by at most one run step (every take that answered true for it names the same step), a
 * take answers true again only to its own step, and what is left untaken is exactly what nobody took.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import fc from 'fast-check';
import type { EventRecord } from '../../core/ledger/index.ts';
import { SqliteStore } from './sqlite-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-evwait-prop-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const event = (i: number): EventRecord => ({
  id: `r${i}`,
  type: 'customer.replied',
  tenant: 'acme',
  source: 'helpdesk',
  subject: `S-${i % 3}`,
  payload: {},
  time: '2026-01-01T00:00:00Z',
});

test('an arrival is taken by one run step at most, however takes interleave', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 5 }),
      fc.array(fc.record({ arrival: fc.nat(4), run: fc.nat(3), step: fc.nat(1), handle: fc.boolean() }), {
        minLength: 1,
        maxLength: 25,
      }),
      async (arrivals, takes) => {
        const path = join(dir, `p${n++}.db`);
        const a = new SqliteStore(path);
        const b = new SqliteStore(path);
        try {
          for (let i = 0; i < arrivals; i++) await a.waits.arrive(event(i), 1000 + i);
          const answers = await Promise.all(
            takes.map((t) =>
              (t.handle ? a : b).waits.take('acme', event(t.arrival), {
                runId: `run-${t.run}`,
                step: `s${t.step}`,
              }),
            ),
          );
          const owner = new Map<number, string>();
          takes.forEach((t, i) => {
            if (!answers[i]) return;
            assert.ok(t.arrival < arrivals, 'a take of an arrival never kept is refused');
            const who = `run-${t.run}/s${t.step}`;
            assert.equal(owner.get(t.arrival) ?? who, who, `arrival ${t.arrival} taken by one step only`);
            owner.set(t.arrival, who);
          });
          // The first take of each kept arrival (in completion order the store chose) succeeded.
          for (let i = 0; i < arrivals; i++)
            if (takes.some((t) => t.arrival === i))
              assert.ok(owner.has(i), `arrival ${i} was taken by someone`);
          const left = await a.waits.untaken(
            'acme',
            'customer.replied',
            0,
            { runId: 'nobody', step: 'x' },
            100,
          );
          assert.deepEqual(
            left.map((x) => x.event.id).sort(),
            Array.from({ length: arrivals }, (_, i) => i)
              .filter((i) => !owner.has(i))
              .map((i) => `r${i}`)
              .sort(),
          );
        } finally {
          await a.close();
          await b.close();
        }
      },
    ),
    { numRuns: 40 },
  );
});
