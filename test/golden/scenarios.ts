/**
 * The runs whose ledgers are kept as golden files: the support-desk outcomes and the
 * nondeterminism fixture, recorded with deterministic sources so the same code always writes the
 * same bytes. Used by golden.test.ts (compare) and record.ts (`npm run golden:update`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Helpdesk } from '../../examples/support-desk/helpdesk.ts';
import { supportDeskTools } from '../../examples/support-desk/tools.ts';
import { createKeel } from '../../src/app/index.ts';
import { exportRunDir } from '../../src/app/run-dirs.ts';
import type { StoredEntry } from '../../src/core/ledger/index.ts';
import type { WorkflowSpec } from '../../src/core/spec/index.ts';
import { deploy, fakeSources } from '../../src/testing/index.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const EXAMPLE = join(ROOT, 'examples', 'support-desk');
const read = (...p: string[]) => readFileSync(join(...p), 'utf8');
const event = (name: string) => JSON.parse(read(EXAMPLE, 'events', `${name}.json`));

export interface GoldenRun {
  readonly name: string;
  readonly spec: WorkflowSpec;
  readonly status: string;
  readonly entries: readonly StoredEntry[];
}

export const GOLDEN_DIR = join(ROOT, 'test', 'fixtures', 'ledgers');

export function goldenKeel() {
  const desk = new Helpdesk(':memory:');
  const keel = createKeel({
    store: ':memory:',
    tools: supportDeskTools(desk),
    sources: fakeSources({ start: Date.UTC(2026, 10, 30, 9), seed: 2026, env: { KEEL_REGION: 'eu-west' } }),
    exposeEnv: { 'acme-support': ['KEEL_REGION'] },
  });
  return { keel, desk };
}

export async function recordScenarios(): Promise<GoldenRun[]> {
  return (await playScenarios()).runs;
}

/** The portable run directory of the golden runs, as `keel export` writes it (test/fixtures/run-dir). */
export async function recordRunDir(): Promise<Map<string, Uint8Array>> {
  return (await playScenarios(true)).runDir!;
}

export const RUN_DIR_GOLDEN = join(ROOT, 'test', 'fixtures', 'run-dir');

async function playScenarios(
  exportDir = false,
): Promise<{ runs: GoldenRun[]; runDir?: Map<string, Uint8Array> }> {
  const { keel, desk } = goldenKeel();
  const tenant = 'acme-support';
  const refund = await deploy(
    keel,
    tenant,
    read(EXAMPLE, 'refund-under-50.yaml').replace('status: DRAFT', 'status: AUTONOMOUS'),
    'dana',
  );
  const close = await deploy(
    keel,
    tenant,
    read(EXAMPLE, 'close-resolved-ticket.yaml').replace('status: DRAFT', 'status: LIVE'),
    'dana',
  );
  const nd = await deploy(
    keel,
    tenant,
    read(ROOT, 'src', 'app', 'fixtures', 'conformance-nondeterminism.yaml'),
    'dana',
  );
  const out: GoldenRun[] = [];
  const ids: string[] = [];
  const keep = async (name: string, spec: WorkflowSpec, runId: string) => {
    ids.push(runId);
    out.push({
      name,
      spec,
      status: (await keel.runs.get(tenant, runId)).status,
      entries: await keel.runs.storedEntries(tenant, runId),
    });
  };
  const emit = async (name: string) => (await keel.events.emit(tenant, event(name))).runs[0]!.runId;
  await keep('refund-30-completed', refund.spec, await emit('refund-30'));
  await keep('refund-500-spend-cap', refund.spec, await emit('refund-500'));
  await keep('refund-missing-amount', refund.spec, await emit('refund-missing-amount'));
  const closeRun = await emit('ticket-resolved');
  await keel.approvals.approve(tenant, closeRun, 'dana (support lead)', 'customer confirmed');
  await keep('close-ticket-approved', close.spec, closeRun);
  // A DRAFT version acts only when asked to (keel run --live): the golden run is a live one.
  const ndRun = await keel.runs.start(
    tenant,
    nd.workflowId,
    { id: 'nd-1', type: 'manual', time: '2026-11-30T09:00:00Z', payload: {} },
    { live: true },
  );
  await keep('conformance-nondeterminism', nd.spec, ndRun.runId);
  const runDir = exportDir
    ? (await exportRunDir(keel, tenant, { runIds: ids }, { now: () => '2026-11-30T12:00:00.000Z' })).files
    : undefined;
  await keel.close();
  desk.shutdown();
  return runDir ? { runs: out, runDir } : { runs: out };
}

/** One golden file: the spec the runs are pinned to, then the stored entries with their payload text. */
export function toGoldenFile(g: GoldenRun): string {
  return `${JSON.stringify(
    {
      name: g.name,
      status: g.status,
      spec: g.spec,
      entries: g.entries.map((e) => ({ ...e, payload: Buffer.from(e.payload).toString('utf8') })),
    },
    null,
    1,
  )}\n`;
}

export function fromGoldenFile(text: string): GoldenRun {
  const g = JSON.parse(text) as Omit<GoldenRun, 'entries'> & {
    entries: (Omit<StoredEntry, 'payload'> & { payload: string })[];
  };
  return { ...g, entries: g.entries.map((e) => ({ ...e, payload: Buffer.from(e.payload, 'utf8') })) };
}
