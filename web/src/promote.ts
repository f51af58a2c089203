/**
 * Promoting a version one step: the gate report for the next status first (each condition met or
 * not, with its counts, and the change from the version events go to now), then the move, with an
 * override and its reason when the gate is not met. Where the gate asks for passing tests, the
 * version's tests can be run from here (`keel test`, POST /api/workflows/{id}/tests): their results
 * are shown and the gate is judged again.
 */
import { useState } from 'preact/hooks';
import { api, type GateReport, query, type Version, type Who } from './api.ts';
import { DiffList, wfPath } from './diff-view.ts';
import { html } from './html.ts';
import { ErrorBox, useAction, useLoad } from './ui.ts';
import { v } from './visible.ts';

const LADDER = ['DRAFT', 'TESTING', 'SHADOW', 'LIVE', 'AUTONOMOUS'];

/** What POST /api/workflows/{id}/tests answers. */
interface TestReport {
  workflowId: string;
  version: number;
  passed: boolean;
  tests: {
    name: string;
    runId?: string;
    status: string;
    passed: boolean;
    results: { expectation: string; ok: boolean; expected: unknown; actual: unknown }[];
  }[];
}

function GateView({ report }: { report: GateReport }) {
  return html`<div class=${`gate ${report.met ? 'met' : 'unmet'}`} data-testid="gate">
    <p><b>${report.met ? 'Gate met' : 'Gate not met'}</b> for v${report.version} ${report.from} → ${report.to}</p>
    <ul>${report.conditions.map((c) => html`<li class=${c.met ? 'ok' : 'bad'} data-condition=${c.id}>${c.met ? '✓' : '✗'} ${v(c.text)}${c.needed !== undefined ? html` <span class="muted">(${c.found ?? 0} of ${c.needed})</span>` : null}</li>`)}</ul>
    ${report.notes.length ? html`<ul class="notes">${report.notes.map((n) => html`<li>${v(n)}</li>`)}</ul>` : null}
    ${report.diff ? html`<details><summary>What it changes from the version events go to now</summary><${DiffList} diff=${report.diff} /></details>` : null}
  </div>`;
}

const json = (x: unknown) => JSON.stringify(x) ?? 'nothing';

function TestResults({ report }: { report: TestReport }) {
  return html`<div class=${`tests ${report.passed ? 'ok' : 'bad'}`} data-testid="test-results" role="status">
    <p><b>${report.passed ? `All ${report.tests.length} tests passed` : 'Tests failed'}</b> for v${report.version} (simulated: no tool acted)</p>
    <ul>${report.tests.map(
      (
        t,
      ) => html`<li class=${t.passed ? 'ok' : 'bad'}>${t.passed ? '✓' : '✗'} ${v(t.name)} <span class="muted">${t.status}</span>${t.runId ? html` <a href=${`#/runs/${encodeURIComponent(t.runId)}`}>run</a>` : null}
        ${t.results
          .filter((r) => !r.ok)
          .map(
            (r) =>
              html`<div class="expectation">${v(r.expectation)}: expected ${v(json(r.expected))}, got ${v(json(r.actual))}</div>`,
          )}</li>`,
    )}</ul>
  </div>`;
}

export function Promote({
  workflowId,
  version: x,
  who,
  onDone,
}: {
  workflowId: string;
  version: Version;
  who: Who;
  onDone: () => void;
}) {
  const next = LADDER[LADDER.indexOf(x.status) + 1];
  const [reason, setReason] = useState('');
  const [tests, setTests] = useState<TestReport | undefined>(undefined);
  const act = useAction();
  const gate = useLoad(
    () =>
      next
        ? api<GateReport>('GET', `${wfPath(workflowId)}/gate${query({ to: next, version: x.version })}`)
        : Promise.resolve(undefined),
    [workflowId, x.version, x.status, tests],
  );
  if (!next) return html`<p class="muted">v${x.version} is ${x.status}: the last step.</p>`;
  const met = gate.value?.met ?? false;
  const testable = x.status === 'TESTING' || gate.value?.conditions.some((c) => c.id === 'tests.pass');
  const runTests = async () => {
    const r = await act.run(() =>
      api<TestReport>('POST', `${wfPath(workflowId)}/tests`, { version: x.version }),
    );
    if (r) setTests(r);
  };
  const promote = async () => {
    const override = !met && reason.trim() ? { reason: reason.trim() } : undefined;
    const question = `Move ${workflowId} v${x.version} from ${x.status} to ${next}${override ? ' although its gate is not met (an override, recorded with your name and reason)' : ''}?`;
    if (!confirm(question)) return;
    if (
      await act.run(() =>
        api('POST', `${wfPath(workflowId)}/promote`, {
          to: next,
          version: x.version,
          ...(override ? { override } : {}),
        }),
      )
    )
      onDone();
  };
  return html`<section class="promote">
    <h3>Promote v${x.version} to ${next}</h3>
    <${ErrorBox} error=${gate.error} />
    ${gate.value ? html`<${GateView} report=${gate.value} />` : html`<p class="loading">Judging the gate…</p>`}
    ${testable ? html`<button type="button" onClick=${runTests} disabled=${act.busy}>Run tests</button>` : null}
    ${tests ? html`<${TestResults} report=${tests} />` : null}
    ${who.kind === 'service' ? html`<p class="muted">This is a service key: only a person's key may promote.</p>` : null}
    ${!met ? html`<label class="reason">Override reason <input type="text" maxlength="4000" value=${reason} onInput=${(e: Event) => setReason((e.target as HTMLInputElement).value)} placeholder="needed to promote past an unmet gate" /></label>` : null}
    <button type="button" onClick=${promote} disabled=${act.busy || !gate.value || (!met && !reason.trim())}>Promote to ${next}</button>
    <${ErrorBox} error=${act.error} />
  </section>`;
}
