/**
 * Workflows: each workflow with its versions; a workflow's page shows every version's status and
 * who moved it when (the hash-chained lifecycle records), the version read back in plain words with
 * its risks, the spec as YAML beside its steps drawn as a flow (trigger → step → step, destructive
 * tools marked), a diff between two versions, and promotion: the gate report for the next status,
 * then the move (with an override and its reason when the gate is not met). Every number shown
 * comes from the API.
 */
import { useState } from 'preact/hooks';
import {
  api,
  type Diff,
  type GateReport,
  type Promotion,
  query,
  type ReadBack,
  type Spec,
  type Version,
  type Who,
} from './api.ts';
import { ExplainView } from './explain-view.ts';
import { html } from './html.ts';
import { Empty, ErrorBox, Time, useAction, useLoad } from './ui.ts';
import { toYaml } from './yaml-view.ts';

const LADDER = ['DRAFT', 'TESTING', 'SHADOW', 'LIVE', 'AUTONOMOUS'];
const wfPath = (id: string) => `/api/workflows/${encodeURIComponent(id)}`;

export function WorkflowsPage() {
  const list = useLoad(() => api<{ versions: Version[] }>('GET', '/api/workflows'), []);
  const byId = new Map<string, Version[]>();
  for (const v of list.value?.versions ?? []) byId.set(v.workflowId, [...(byId.get(v.workflowId) ?? []), v]);
  return html`
    <h1>Workflows</h1>
    <${ErrorBox} error=${list.error} />
    ${
      !list.value
        ? html`<p class="loading">Loading workflows…</p>`
        : byId.size === 0
          ? html`<${Empty}>No workflows yet — publish one: <code>npx keel publish workflows/&lt;spec&gt;.yaml</code><//>`
          : html`<table><thead><tr><th>Workflow</th><th>Versions</th><th>Where events go</th><th>Runs</th></tr></thead><tbody>
              ${[...byId]
                .sort(([a], [b]) => a.localeCompare(b))
                .map(([id, vs]) => {
                  const live = vs.filter((v) => v.status === 'LIVE' || v.status === 'AUTONOMOUS');
                  return html`<tr>
                  <td><a href=${`#/workflows/${encodeURIComponent(id)}`}>${id}</a></td>
                  <td>${vs.map((v) => html`<span class=${`wstatus w-${v.status}`}>v${v.version} ${v.status}</span> `)}</td>
                  <td>${live.length ? live.map((v) => `v${v.version} (${v.status})`).join(', ') : html`<span class="muted">no LIVE version</span>`}</td>
                  <td><a href=${`#/runs${query({ workflowId: id })}`}>runs</a></td>
                </tr>`;
                })}
            </tbody></table>`
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
    <li class="trigger">on ${(spec.triggers ?? []).map((t) => t.event).join(' or ') || 'a direct start'}</li>
    ${spec.steps.map((s) => {
      const t = info.get(s.tool);
      return html`<li class=${t?.destructive ? 'destructive' : ''}>
        <b>${s.name}</b> <code>${s.tool}</code>
        ${t?.effect ? html` <span class="tag">${t.effect}</span>` : null}
        ${t?.destructive ? html` <span class="tag danger" title="asks a person before it runs while not AUTONOMOUS">destructive</span>` : null}
      </li>`;
    })}
  </ol>`;
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

function DiffView({ workflowId, versions }: { workflowId: string; versions: number[] }) {
  const [pair, setPair] = useState({
    from: versions[versions.length - 2] ?? versions[0],
    to: versions[versions.length - 1],
  });
  const d = useLoad(
    () =>
      pair.from && pair.to && pair.from !== pair.to
        ? api<Diff>('GET', `${wfPath(workflowId)}/diff${query({ from: pair.from, to: pair.to })}`)
        : Promise.resolve(undefined),
    [workflowId, pair.from, pair.to],
  );
  const pick = (k: 'from' | 'to') => (e: Event) =>
    setPair({ ...pair, [k]: Number((e.target as HTMLSelectElement).value) });
  const opts = (sel: number | undefined) =>
    versions.map((v) => html`<option value=${String(v)} selected=${v === sel}>v${v}</option>`);
  return html`<section class="diff">
    <h2>Diff</h2>
    <label>from <select onChange=${pick('from')}>${opts(pair.from)}</select></label>
    <label>to <select onChange=${pick('to')}>${opts(pair.to)}</select></label>
    <${ErrorBox} error=${d.error} />
    ${d.value ? html`<${DiffList} diff=${d.value} />` : pair.from === pair.to ? html`<p class="muted">Pick two versions.</p>` : null}
  </section>`;
}

function DiffList({ diff }: { diff: Diff }) {
  if (diff.same) return html`<p>v${diff.from} and v${diff.to} are the same document.</p>`;
  return html`${diff.sameBehaviour ? html`<p>No behaviour change.</p>` : null}
    <ul class="changes">${diff.changes.map((c) => html`<li class=${c.behaviour ? '' : 'muted'}><span class="tag">${c.area}</span> ${c.text}</li>`)}</ul>`;
}

function GateView({ report }: { report: GateReport }) {
  return html`<div class=${`gate ${report.met ? 'met' : 'unmet'}`} data-testid="gate">
    <p><b>${report.met ? 'Gate met' : 'Gate not met'}</b> for v${report.version} ${report.from} → ${report.to}</p>
    <ul>${report.conditions.map((c) => html`<li class=${c.met ? 'ok' : 'bad'}>${c.met ? '✓' : '✗'} ${c.text}${c.needed !== undefined ? html` <span class="muted">(${c.found ?? 0} of ${c.needed})</span>` : null}</li>`)}</ul>
    ${report.notes.length ? html`<ul class="notes">${report.notes.map((n) => html`<li>${n}</li>`)}</ul>` : null}
    ${report.diff ? html`<details><summary>What it changes from the version events go to now</summary><${DiffList} diff=${report.diff} /></details>` : null}
  </div>`;
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
                  html`<li>${d.sentences.join(' ')}${d.starts?.candidate === false ? null : html` <a href=${`#/runs/${encodeURIComponent(d.shadowRunId)}`}>shadow</a>`}${d.liveRunId ? html` · <a href=${`#/runs/${encodeURIComponent(d.liveRunId)}`}>live</a>` : null}</li>`,
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
  const v = r.value?.verdict;
  return html`<section class="rollout" data-testid="rollout">
    <h2>Rollout</h2>
    <p>v${x.to} takes <b>${x.percent}%</b> of events, v${x.from} the rest; stages ${x.steps.join(' → ')}%${x.auto ? ' (advances and rolls back by itself)' : ''}. Started <${Time} at=${x.startedAt} /> by ${x.startedBy}.</p>
    ${v ? html`<p>Figures say: <b>${v.verdict}</b>${v.next ? ` to ${v.next}%` : ''}. ${v.reasons.join(' ')}</p>` : null}
  </section>`;
}

function Promote({
  workflowId,
  v,
  who,
  onDone,
}: {
  workflowId: string;
  v: Version;
  who: Who;
  onDone: () => void;
}) {
  const next = LADDER[LADDER.indexOf(v.status) + 1];
  const [reason, setReason] = useState('');
  const act = useAction();
  const gate = useLoad(
    () =>
      next
        ? api<GateReport>('GET', `${wfPath(workflowId)}/gate${query({ to: next, version: v.version })}`)
        : Promise.resolve(undefined),
    [workflowId, v.version, v.status],
  );
  if (!next) return html`<p class="muted">v${v.version} is ${v.status}: the last step.</p>`;
  const met = gate.value?.met ?? false;
  const promote = async () => {
    const override = !met && reason.trim() ? { reason: reason.trim() } : undefined;
    const question = `Move ${workflowId} v${v.version} from ${v.status} to ${next}${override ? ' although its gate is not met (an override, recorded with your name and reason)' : ''}?`;
    if (!confirm(question)) return;
    if (
      await act.run(() =>
        api('POST', `${wfPath(workflowId)}/promote`, {
          to: next,
          version: v.version,
          ...(override ? { override } : {}),
        }),
      )
    )
      onDone();
  };
  return html`<section class="promote">
    <h3>Promote v${v.version} to ${next}</h3>
    <${ErrorBox} error=${gate.error} />
    ${gate.value ? html`<${GateView} report=${gate.value} />` : html`<p class="loading">Judging the gate…</p>`}
    ${who.kind === 'service' ? html`<p class="muted">This is a service key: only a person's key may promote.</p>` : null}
    ${!met ? html`<label>Override reason <input type="text" maxlength="4000" value=${reason} onInput=${(e: Event) => setReason((e.target as HTMLInputElement).value)} placeholder="needed to promote past an unmet gate" /></label>` : null}
    <button type="button" onClick=${promote} disabled=${act.busy || !gate.value || (!met && !reason.trim())}>Promote to ${next}</button>
    <${ErrorBox} error=${act.error} />
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
  if (all.error && !all.value) return html`<h1>${workflowId}</h1><${ErrorBox} error=${all.error} />`;
  if (!all.value) return html`<p class="loading">Loading ${workflowId}…</p>`;
  const v = one.value;
  return html`
    <p><a href="#/workflows">← All workflows</a></p>
    <h1>${workflowId}</h1>
    <table class="versions"><thead><tr><th>Version</th><th>Status</th><th>Published</th><th>Spec hash</th><th></th></tr></thead><tbody>
      ${versions.map(
        (x) => html`<tr class=${x.version === shown ? 'picked' : ''}>
        <td><button type="button" class="link" onClick=${() => setPicked(x.version)}>v${x.version}</button></td>
        <td><span class=${`wstatus w-${x.status}`}>${x.status}</span></td>
        <td><${Time} at=${x.publishedAt} /> by ${x.publishedBy}</td>
        <td><code>${x.specHash.slice(7, 19)}…</code></td>
        <td><a href=${`#/runs${query({ workflowId, version: x.version })}`}>runs</a></td>
      </tr>`,
      )}
    </tbody></table>
    <h2>Who moved it when</h2>
    ${
      all.value.promotions.length === 0
        ? html`<p class="muted">No promotions yet.</p>`
        : html`<ol class="promotions">${all.value.promotions.map(
            (p) =>
              html`<li><${Time} at=${p.at} /> v${p.version} ${p.from} → ${p.to} by <b>${p.by}</b>${p.override ? html` <span class="tag danger">override: ${p.override.reason}</span>` : null}</li>`,
          )}</ol>`
    }
    <${ErrorBox} error=${one.error} />
    ${
      v
        ? html`<h2>v${v.version} <span class=${`wstatus w-${v.status}`}>${v.status}</span></h2>
          <${VersionExplain} workflowId=${workflowId} version=${v.version} />
          <div class="spec">
            <${Flow} spec=${v.spec!} tools=${v.tools} />
            <pre class="yaml" aria-label="Spec">${toYaml(v.spec)}</pre>
          </div>
          ${v.status === 'SHADOW' ? html`<${ShadowView} workflowId=${workflowId} version=${v.version} />` : null}
          <${Promote} workflowId=${workflowId} v=${v} who=${who} onDone=${() => setTick((t) => t + 1)} />`
        : null
    }
    <${RolloutView} workflowId=${workflowId} tick=${tick} />
    ${versions.length > 1 ? html`<${DiffView} workflowId=${workflowId} versions=${versions.map((x) => x.version)} />` : null}`;
}
