/**
 * The lifecycle in plain text, for the CLI: gate reports (each condition met or not, with what
 * was counted), test tables, shadow reports, rollouts, diffs and lifecycle records. Formatting
 * only: values in, lines out.
 */
import pc from 'picocolors';
import type { RolloutStatus, ShadowReport, TestReport } from '../app/index.ts';
import type {
  ChainResult,
  GateReport,
  RolloutState,
  RolloutVerdict,
  SpecDiff,
} from '../core/lifecycle/index.ts';
import type { Promotion } from '../ports/index.ts';

const mark = (ok: boolean) => (ok ? pc.green('✓') : pc.red('✗'));
const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;

export function gateLines(r: GateReport): string[] {
  const head = `gate ${r.workflowId} v${r.version} ${r.from} -> ${r.to}: ${r.met ? pc.green('met') : pc.red('not met')}`;
  const conditions = r.conditions.map((c) => `  ${mark(c.met)} ${c.text}`);
  const none = r.conditions.length === 0 ? ['  (no conditions: a person decides)'] : [];
  const diff = r.diff
    ? r.diff.same
      ? [`  ${pc.dim(`same as v${r.diff.from}, the version events go to now`)}`]
      : [
          `  changes from v${r.diff.from}, the version events go to now${r.diff.sameBehaviour ? ' (no behaviour change)' : ''}:`,
          ...r.diff.changes.map((c) => `    - ${c.behaviour ? c.text : pc.dim(c.text)}`),
        ]
    : [];
  return [head, ...conditions, ...none, ...r.notes.map((n) => `  ${pc.dim(`note: ${n}`)}`), ...diff];
}

export function testLines(r: TestReport): string[] {
  const out = [
    `tests of ${r.workflowId} v${r.version} (simulated: no write or external tool acts, nobody is asked)`,
  ];
  const width = Math.max(4, ...r.tests.map((t) => t.name.length));
  for (const t of r.tests) {
    const result = t.adhoc
      ? t.passed
        ? 'ran'
        : pc.red('FAIL')
      : t.passed
        ? pc.green('PASS')
        : pc.red('FAIL');
    const what = [
      t.status,
      t.runId === undefined ? '' : t.steps.length > 0 ? `steps ${t.steps.join(' > ')}` : 'no step reached',
      t.refusal ? `refused ${t.refusal}` : '',
      t.approvals.length > 0 ? `would ask a person at ${t.approvals.join(', ')}` : '',
    ].filter(Boolean);
    out.push(
      `  ${result.padEnd(4)}  ${t.name.padEnd(width)}  ${what.join('; ')}${t.runId ? `  ${pc.dim(t.runId)}` : ''}`,
    );
    for (const x of t.results.filter((e) => !e.ok))
      out.push(
        `          ${x.expectation}: expected ${JSON.stringify(x.expected)}, got ${JSON.stringify(x.actual) ?? 'nothing'}`,
      );
  }
  if (r.tests.length === 0) out.push('  (no tests: add a tests: section to the spec, or give event files)');
  const failed = r.tests.filter((t) => !t.passed).length;
  out.push(
    failed === 0
      ? `${pc.green('passed')}: ${r.tests.length} of ${r.tests.length}`
      : `${pc.red('failed')}: ${failed} of ${r.tests.length}`,
  );
  return out;
}

const ago = (ms: number) =>
  ms < 1000 ? `${ms} ms` : ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`;

export function shadowReportLines(r: ShadowReport): string[] {
  const rate =
    r.comparisons === 0
      ? 'no comparisons yet'
      : `${pct(r.agreement)} agreement (${r.agreed} of ${r.comparisons})`;
  const starts = [
    r.starts.wouldNotStart > 0 ? `${r.starts.wouldNotStart} events v${r.version} would not start on` : '',
    r.starts.wouldStartAlone > 0
      ? `${r.starts.wouldStartAlone} events only v${r.version} would start on`
      : '',
  ].filter(Boolean);
  const q = r.queue;
  const waiting = q.waiting + q.running;
  const out = [
    `${r.workflowId} v${r.version} against v${r.against.join(', v') || '?'}: ${rate}${starts.length > 0 ? `; ${starts.join(', ')}` : ''}`,
    waiting === 0
      ? `  ${pc.dim('shadow queue: nothing waiting')}`
      : `  shadow queue: ${waiting} comparison${waiting === 1 ? '' : 's'} still to make${q.running > 0 ? ` (${q.running} being made)` : ''}${q.oldestAgeMs !== undefined ? `, the oldest queued ${ago(q.oldestAgeMs)} ago` : ''}`,
  ];
  if (q.failed > 0)
    out.push(
      `  ${pc.red(`${q.failed} comparison${q.failed === 1 ? '' : 's'} given up on`)} after failed attempts (keel recover --all tries them again)${q.failures
        .slice(0, 3)
        .map((f) => `\n    - ${f.liveRunId ? `beside ${f.liveRunId}` : f.id}: ${f.error}`)
        .join('')}`,
    );
  for (const d of r.disagreements) {
    const id = d.starts?.candidate === false ? '' : ` ${pc.dim(d.shadowRunId)}`;
    for (const s of d.sentences) out.push(`  - ${s}${id}`);
  }
  for (const g of r.refusalGroups)
    out.push(
      `  ${pc.red(`refusal v${r.version} alone would make`)}: ${g.what} in ${g.count} run${g.count === 1 ? '' : 's'} ${pc.dim(`(${g.count === 1 ? '' : 'e.g. '}${g.examples.join(', ')})`)}`,
    );
  for (const s of r.skippedBeside)
    out.push(
      `  ${pc.dim(`${s.count} shadow run${s.count === 1 ? '' : 's'} skipped at the old concurrency limit beside ${s.liveVersion === null ? 'live runs no longer in the store' : `v${s.liveVersion}`} (before the shadow queue)`)}`,
    );
  return out;
}

export function rolloutLines(
  workflowId: string,
  r: RolloutState | undefined,
  v?: RolloutVerdict,
  disagreements?: RolloutStatus['triggerDisagreements'],
): string[] {
  if (!r) return [`${workflowId} has no rollout`];
  const head = `${workflowId}: v${r.to} ${r.status === 'active' ? `gets ${r.percent}% of events, v${r.from} the rest` : r.status === 'completed' ? `took all events from v${r.from} (completed)` : `was rolled back (v${r.from} takes all events)`}`;
  const sticky = r.stickyBy ?? 'subject';
  const lines = [
    head,
    `  steps up to ${r.steps.join(' → ')}%${r.auto ? ', automatic' : ''}; advances while v${r.to} is not worse by more than ${pct(r.threshold)} (after ${r.minRuns} runs of each)`,
    sticky === 'event'
      ? '  each event is bucketed alone'
      : `  events with the same ${sticky} stay on one version (sticky by ${sticky})`,
  ];
  if (v)
    lines.push(
      `  ${v.verdict === 'advance' ? pc.green('may advance') : v.verdict === 'hold' ? pc.yellow('waiting for runs') : pc.red('must roll back')}: ${v.reasons.join('; ')}`,
    );
  if (disagreements && disagreements.count > 0) {
    const sum = (f: (x: { chosen: number; taken: number | null }) => boolean) =>
      disagreements.byChoice.filter(f).reduce((k, x) => k + x.count, 0);
    const onlyFrom = sum((x) => x.taken === r.from);
    const overridden = sum((x) => x.taken === r.from && x.chosen === r.to);
    const onlyTo = sum((x) => x.taken !== r.from);
    const toTook = sum((x) => x.taken === r.to);
    const parts = [
      ...(onlyFrom > 0
        ? [
            `only v${r.from}'s trigger takes ${onlyFrom} (all went to v${r.from}; the bucket chose v${r.to} for ${overridden})`,
          ]
        : []),
      ...(onlyTo > 0
        ? [
            `only v${r.to}'s trigger takes ${onlyTo} (v${r.to} took ${toTook}, its share; ${onlyTo - toTook} started nothing)`,
          ]
        : []),
    ];
    lines.push(
      `  ${pc.yellow('triggers disagree')} on ${disagreements.count} event${disagreements.count === 1 ? '' : 's'} since the rollout started: ${parts.join('; ')}`,
    );
  }
  return lines;
}

export function diffLines(workflowId: string, d: SpecDiff): string[] {
  if (d.same) return [`${workflowId} v${d.from} and v${d.to} say the same`];
  const head = `${workflowId} v${d.from} -> v${d.to}${d.sameBehaviour ? `: ${pc.green('no behaviour change')}` : ':'}`;
  return [head, ...d.changes.map((c) => `  - ${c.behaviour ? c.text : pc.dim(c.text)}`)];
}

export function recordLines(records: readonly Promotion[]): string[] {
  return records.map((p) => {
    const percent = (p.evidence as { percent?: number; rollout?: { percent?: number } } | undefined)?.percent;
    const what =
      p.kind === 'rollout' && p.from === p.to
        ? `rollout now ${percent ?? '?'}% of events`
        : p.kind === 'rollout'
          ? `${p.from} -> ${p.to}, rolling out to ${(p.evidence as { rollout?: { percent?: number } })?.rollout?.percent ?? '?'}% of events`
          : `${p.from} -> ${p.to}`;
    const override = p.override ? pc.yellow(` (override: ${p.override.reason})`) : '';
    return `  ${p.at}  v${p.version} ${what} by ${p.by}${p.kind && p.kind !== 'promote' ? ` [${p.kind}]` : ''}${override}`;
  });
}

export function chainText(workflowId: string, records: number, chain: ChainResult): string {
  if (chain.ok)
    return `${pc.green('ok')}: ${workflowId}: ${records} lifecycle record${records === 1 ? '' : 's'}, chain intact${chain.unchained ? ` (${chain.unchained} recorded before the chain, hashed in place)` : ''}`;
  return `${pc.red('FAILED')}: ${workflowId}: ${chain.message}`;
}
