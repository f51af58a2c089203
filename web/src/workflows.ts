/**
 * Workflows: each workflow with its versions; a workflow's page shows every version's status and
 * who moved it when (the hash-chained lifecycle records), the version read back in plain words with
 * its risks, the spec as YAML beside its steps drawn as a flow (trigger — an event or a schedule —
 * → step → step, destructive tools marked), a diff between two versions (diff-view.ts), and
 * promotion (promote.ts). Every
 * number shown comes from the API. The page is drawn afresh for each workflow (main.ts keys it by
 * id), so nothing picked on one workflow's page carries over to another's.
 */
import { useState } from 'preact/hooks';
import {
  api,
  type FlowStep,
  type Promotion,
  query,
  type ReadBack,
  type Spec,
  type Version,
  type Who,
} from './api.ts';
import { DiffView, wfPath } from './diff-view.ts';
import { ExplainView } from './explain-view.ts';
import { html } from './html.ts';
import { Promote } from './promote.ts';
import { ScheduleView } from './schedule-view.ts';
import { triggersText } from './trigger-text.ts';
import { Empty, ErrorBox, Time, useLoad } from './ui.ts';
import { v } from './visible.ts';
import { toYaml } from './yaml-view.ts';

export function WorkflowsPage() {
  const list = useLoad(() => api<{ versions: Version[] }>('GET', '/api/workflows'), []);
  const byId = new Map<string, Version[]>();
  for (const x of list.value?.versions ?? []) byId.set(x.workflowId, [...(byId.get(x.workflowId) ?? []), x]);
  return html`
    <h1>Workflows</h1>
    <${ErrorBox} error=${list.error} />
    ${
      !list.value
        ? html`<p class="loading">Loading workflows…</p>`
        : byId.size === 0
          ? html`<${Empty}>No workflows yet — publish one: <code>${'npx keel publish workflows/<spec>.yaml'}</code><//>`
          : html`<div class="scroll"><table><thead><tr><th>Workflow</th><th>Versions</th><th>Where events go</th><th>Runs</th></tr></thead><tbody>
              ${[...byId]
                .sort(([a], [b]) => a.localeCompare(b))
                .map(([id, vs]) => {
                  const live = vs.filter((x) => x.status === 'LIVE' || x.status === 'AUTONOMOUS');
                  return html`<tr>
                  <td><a href=${`#/workflows/${encodeURIComponent(id)}`}>${v(id)}</a></td>
                  <td>${vs.map((x) => html`<span class=${`wstatus w-${x.status}`}>v${x.version} ${x.status}</span> `)}</td>
                  <td>${live.length ? live.map((x) => `v${x.version} (${x.status})`).join(', ') : html`<span class="muted">no LIVE version</span>`}</td>
                  <td><a href=${`#/runs${query({ workflowId: id })}`}>runs</a></td>
                </tr>`;
                })}
            </tbody></table></div>`
    }`;
}

interface ToolInfo {
  name: string;
  effect: string | null;
  destructive: boolean;
}

function Flow({ spec, tools }: { spec: Spec; tools: ToolInfo[] }) {
  const info = new Map(tools.map((t) => [t.name, t]));
  return html`<ol class="flow" aria-label="Steps">
    <li class="trigger">on ${v(triggersText(spec.triggers))}</li>
    ${spec.steps.map((s) => html`<${FlowItem} step=${s} info=${info} />`)}
  </ol>`;
}

/** One step of the drawing: a tool step (with its condition), a choice with its branches drawn under it, a wait, parallel branches side by side, or a loop with its steps under it. */
function FlowItem({ step: s, info }: { step: FlowStep; info: Map<string, ToolInfo> }) {
  if (s.forEach) {
    const f = s.forEach;
    return html`<li class="loop" data-step=${s.name}>
      <b>${v(s.name)}</b> <span class="tag" title="its steps run once per item, in order; a longer list fails the run before any of them">for each ${v(f.as)} of ${v(f.items)}, at most ${f.max}</span>
      <div class="branch"><span class="when">each ${v(f.as)}:</span>
        <ol class="flow">${(s.steps ?? []).map((x) => html`<${FlowItem} step=${x} info=${info} />`)}</ol>
      </div>
    </li>`;
  }
  if (s.wait) {
    const w = s.wait;
    const how =
      w.event !== undefined
        ? `for ${w.event}${w.match ? ` where ${w.match}` : ''}${w.timeout ? `, at most ${w.timeout}` : ''}${w.lookback ? ` (or one up to ${w.lookback} before)` : ''}`
        : w.for !== undefined
          ? `for ${w.for}`
          : `until ${w.until ?? ''}`;
    return html`<li class="wait" data-step=${s.name}>
      <b>${v(s.name)}</b> <span class="tag" title="the run suspends here, holding nothing, and calls no tool">waits ${v(how)}</span>
    </li>`;
  }
  if (s.parallel) {
    const join =
      s.parallel.join === 'all'
        ? 'then goes on when all have finished'
        : 'then goes on when the first finishes (the others are cut)';
    return html`<li class="parallel" data-step=${s.name}>
      <b>${v(s.name)}</b> <span class="tag" title=${join}>runs ${Object.keys(s.parallel.branches).length} branches at the same time, joins ${s.parallel.join}</span>
      <div class="lanes">
        ${Object.entries(s.parallel.branches).map(
          ([
            b,
            steps,
          ]) => html`<div class="branch lane" data-branch=${b}><span class="when">branch ${v(b)}</span>
            <ol class="flow">${steps.map((x) => html`<${FlowItem} step=${x} info=${info} />`)}</ol></div>`,
        )}
      </div>
    </li>`;
  }
  if (s.choose) {
    const ways = [
      ...s.choose.map((b, j) => ({ label: `${j === 0 ? 'if' : 'otherwise, if'} ${b.when}`, steps: b.steps })),
      { label: 'otherwise', steps: s.else ?? [] },
    ];
    return html`<li class="choice">
      <b>${v(s.name)}</b> <span class="tag">chooses one way</span>
      ${ways.map(
        (w) => html`<div class="branch"><span class="when">${v(w.label)}</span>
          ${
            w.steps.length === 0
              ? html` <i>nothing</i>`
              : html`<ol class="flow">${w.steps.map((x) => html`<${FlowItem} step=${x} info=${info} />`)}</ol>`
          }</div>`,
      )}
    </li>`;
  }
  const t = info.get(s.tool ?? '');
  return html`<li class=${t?.destructive ? 'destructive' : ''}>
    <b>${v(s.name)}</b> <code>${v(s.tool ?? '')}</code>
    ${t?.effect ? html` <span class="tag">${t.effect}</span>` : null}
    ${t?.destructive ? html` <span class="tag danger" title="asks a person before it runs while not AUTONOMOUS">destructive</span>` : null}
    ${s.if ? html` <span class="tag" title="skipped when the condition is false">only if ${v(s.if)}</span>` : null}
    ${s.approval ? html` <span class="tag" title="if nobody decides on its approval in time">${v(approvalTag(s.approval))}</span>` : null}
  </li>`;
}

/** "approval within 24h, then deny" / "…, then to finance-leads"; reminders said too. */
function approvalTag(a: NonNullable<FlowStep['approval']>): string {
  const then = a.then === 'deny' ? 'deny' : `to ${a.then.escalate}`;
  return `approval within ${a.timeout}, then ${then}${a.remind ? `, reminded every ${a.remind}` : ''}`;
}

/** The version read back in plain words, from the API (the same text as `keel explain`). */
function VersionExplain({ workflowId, version }: { workflowId: string; version: number }) {
  const r = useLoad(
    () => api<ReadBack>('GET', `${wfPath(workflowId)}/explain${query({ version })}`),
    [workflowId, version],
  );
  if (r.error) return html`<${ErrorBox} error=${r.error} />`;
  return r.value ? html`<${ExplainView} readBack=${r.value} />` : null;
}

interface ShadowReport {
  version: number;
  against: number[];
  comparisons: number;
  agreed: number;
  agreement: number;
  starts: { wouldNotStart: number; wouldStartAlone: number };
  queue: { waiting: number; running: number; oldestAgeMs?: number; failed: number };
  skipped: number;
  newRefusals: { runId: string; step: string; code: string }[];
  disagreements: {
    shadowRunId: string;
    liveRunId?: string;
    liveVersion: number;
    starts?: { live: boolean; candidate: boolean };
    sentences: string[];
  }[];
}

/** How a SHADOW version agreed with the live runs it shadowed (`keel shadow report`). */
function ShadowView({ workflowId, version }: { workflowId: string; version: number }) {
  const r = useLoad(
    () => api<ShadowReport>('GET', `${wfPath(workflowId)}/shadow-report${query({ version })}`),
    [workflowId, version],
  );
  const x = r.value;
  const waiting = x ? x.queue.waiting + x.queue.running : 0;
  return html`<section class="shadow" data-testid="shadow-report">
    <h3>Shadow comparisons of v${version}</h3>
    <${ErrorBox} error=${r.error} />
    ${waiting > 0 ? html`<p class="muted">${waiting} comparisons still to make (in the shadow queue)${x?.queue.oldestAgeMs !== undefined ? `, the oldest queued ${Math.round(x.queue.oldestAgeMs / 1000)} s ago` : ''}</p>` : null}
    ${x?.queue.failed ? html`<p class="bad">${x.queue.failed} comparisons given up on after failed attempts (keel recover --all tries them again)</p>` : null}
    ${
      !x
        ? null
        : x.comparisons === 0
          ? html`<p class="muted">No comparisons yet: each event of the workflow is also run by v${version}, simulated, where it would start, and the two are compared once both end.</p>`
          : html`<p><b>${Math.round(x.agreement * 1000) / 10}%</b> agreement: ${x.agreed} of ${x.comparisons} events of v${x.against.join(', v')}${x.starts.wouldNotStart ? html`; <span class="bad">v${version} would not start on ${x.starts.wouldNotStart}</span>` : null}${x.starts.wouldStartAlone ? html`; <span class="bad">only v${version} would start on ${x.starts.wouldStartAlone}</span>` : null}${x.skipped ? html` <span class="muted">(${x.skipped} skipped at the shadow limit, before the shadow queue)</span>` : null}</p>
            ${x.newRefusals.length ? html`<p class="bad">${x.newRefusals.length} refusals the live version did not make</p>` : null}
            <ul class="changes">${x.disagreements
              .slice(0, 20)
              .map(
                (d) =>
                  html`<li>${v(d.sentences.join(' '))}${d.starts?.candidate === false ? null : html` <a href=${`#/runs/${encodeURIComponent(d.shadowRunId)}`}>shadow</a>`}${d.liveRunId ? html` · <a href=${`#/runs/${encodeURIComponent(d.liveRunId)}`}>live</a>` : null}</li>`,
              )}</ul>`
    }
  </section>`;
}

interface RolloutStatus {
  rollout?: {
    from: number;
    to: number;
    percent: number;
    steps: number[];
    auto: boolean;
    startedAt: string;
    startedBy: string;
  };
  verdict?: { verdict: string; reasons: string[]; next?: number };
}

/** A rollout in progress: the split, its stages and whether its figures let it advance. */
function RolloutView({ workflowId, tick }: { workflowId: string; tick: number }) {
  const r = useLoad(() => api<RolloutStatus>('GET', `${wfPath(workflowId)}/rollout`), [workflowId, tick]);
  const x = r.value?.rollout;
  if (r.error) return html`<${ErrorBox} error=${r.error} />`;
  if (!x) return null;
  const verdict = r.value?.verdict;
  return html`<section class="rollout" data-testid="rollout">
    <h2>Rollout</h2>
    <p>v${x.to} takes <b>${x.percent}%</b> of events, v${x.from} the rest; stages ${x.steps.join(' → ')}%${x.auto ? ' (advances and rolls back by itself)' : ''}. Started <${Time} at=${x.startedAt} /> by ${v(x.startedBy)}.</p>
    ${verdict ? html`<p>Figures say: <b>${v(verdict.verdict)}</b>${verdict.next ? ` to ${verdict.next}%` : ''}. ${v(verdict.reasons.join(' '))}</p>` : null}
  </section>`;
}

export function WorkflowPage({ workflowId, who }: { workflowId: string; who: Who }) {
  const [tick, setTick] = useState(0);
  const [picked, setPicked] = useState<number | undefined>(undefined);
  const all = useLoad(
    () => api<{ versions: Version[]; promotions: Promotion[] }>('GET', `${wfPath(workflowId)}/versions`),
    [workflowId, tick],
  );
  const versions = all.value?.versions ?? [];
  const shown = picked ?? versions[versions.length - 1]?.version;
  const one = useLoad(
    () =>
      shown
        ? api<Version & { tools: ToolInfo[] }>('GET', `${wfPath(workflowId)}${query({ version: shown })}`)
        : Promise.resolve(undefined),
    [workflowId, shown, tick],
  );
  if (all.error && !all.value) return html`<h1>${v(workflowId)}</h1><${ErrorBox} error=${all.error} />`;
  if (!all.value) return html`<p class="loading">Loading ${v(workflowId)}…</p>`;
  const it = one.value;
  return html`
    <p><a href="#/workflows">← All workflows</a></p>
    <h1>${v(workflowId)}</h1>
    <div class="scroll"><table class="versions"><thead><tr><th>Version</th><th>Status</th><th>Published</th><th>Spec hash</th><th></th></tr></thead><tbody>
      ${versions.map(
        (x) => html`<tr class=${x.version === shown ? 'picked' : ''}>
        <td><button type="button" class="link" onClick=${() => setPicked(x.version)}>v${x.version}</button></td>
        <td><span class=${`wstatus w-${x.status}`}>${x.status}</span></td>
        <td><${Time} at=${x.publishedAt} /> by ${v(x.publishedBy)}</td>
        <td><code>${x.specHash.slice(7, 19)}…</code></td>
        <td><a href=${`#/runs${query({ workflowId, version: x.version })}`}>runs</a></td>
      </tr>`,
      )}
    </tbody></table></div>
    <h2>Who moved it when</h2>
    ${
      all.value.promotions.length === 0
        ? html`<p class="muted">No promotions yet.</p>`
        : html`<ol class="promotions">${all.value.promotions.map(
            (p) =>
              html`<li><${Time} at=${p.at} /> v${p.version} ${p.from} → ${p.to} by <b>${v(p.by)}</b>${p.override ? html` <span class="override">override: ${v(p.override.reason)}</span>` : null}</li>`,
          )}</ol>`
    }
    <${ErrorBox} error=${one.error} />
    ${
      it
        ? html`<h2>v${it.version} <span class=${`wstatus w-${it.status}`}>${it.status}</span></h2>
          <${VersionExplain} workflowId=${workflowId} version=${it.version} />
          <div class="spec">
            <${Flow} spec=${it.spec!} tools=${it.tools} />
            <pre class="yaml" aria-label="Spec">${toYaml(it.spec)}</pre>
          </div>
          ${it.status === 'SHADOW' ? html`<${ShadowView} workflowId=${workflowId} version=${it.version} />` : null}
          <${Promote} key=${`${it.version} ${it.status}`} workflowId=${workflowId} version=${it} who=${who} onDone=${() => setTick((t) => t + 1)} />`
        : null
    }
    <${ScheduleView} workflowId=${workflowId} tick=${tick} />
    <${RolloutView} workflowId=${workflowId} tick=${tick} />
    ${versions.length > 1 ? html`<${DiffView} workflowId=${workflowId} versions=${versions.map((x) => x.version)} />` : null}`;
}
