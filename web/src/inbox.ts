/**
 * Approvals: every pending approval of the tenant, oldest first, with what the step would do, why
 * it waits and the run's history so far; approve or deny with a note, through the same routes the
 * CLI uses. A decision someone else made meanwhile shows who made it. Reads again every few
 * seconds, so approvals made or resolved elsewhere appear and go.
 */
import { useState } from 'preact/hooks';
import { type Approval, api, type HistoryLine, runPath, type Who } from './api.ts';
import { money, shortHash } from './format.ts';
import { html } from './html.ts';
import { Empty, ErrorBox, Json, Time, useAction, useLoad } from './ui.ts';
import { v } from './visible.ts';

const CAUSE = { policy: 'policy rule', destructive: 'destructive tool', gate: 'always asks' } as const;

function History({ runId }: { runId: string }) {
  const h = useLoad(() => api<{ history: HistoryLine[] }>('GET', `${runPath(runId)}/history`), [runId]);
  if (h.error) return html`<${ErrorBox} error=${h.error} />`;
  if (!h.value) return html`<p class="loading">Loading…</p>`;
  return html`<ol class="timeline compact">${h.value.history.map((l) => html`<li><span class="seq">${l.seq}</span> ${v(l.text)}</li>`)}</ol>`;
}

function Card({ a, who, onDecided }: { a: Approval; who: Who; onDecided: (a: Approval) => void }) {
  const act = useAction();
  const [note, setNote] = useState('');
  const [decided, setDecided] = useState<unknown>(null);
  const decide = (decision: 'approve' | 'deny') => async () => {
    const r = await act.run(() =>
      api('POST', `${runPath(a.runId)}/${decision}`, note.trim() ? { note: note.trim() } : {}),
    );
    if (r) setDecided(html`${decision === 'approve' ? 'Approved' : 'Denied'} by ${v(who.subject)}`);
    onDecided(a);
  };
  const e = act.error;
  const by = e?.details.resolvedBy;
  const already =
    e && typeof by === 'string'
      ? html`Already resolved by ${v(by)}${typeof e.details.decision === 'string' ? html` (${v(e.details.decision)})` : null}`
      : null;
  if (a.invalid)
    return html`<li class="approval invalid" data-run=${a.runId}>
      <p class="bad">Run <a href=${`#/runs/${encodeURIComponent(a.runId)}`}><code>${shortHash(a.runId)}</code></a> fails verification at seq ${a.invalid.seq} (<code>${a.invalid.code}</code>): ${v(a.invalid.message)}. It cannot be decided.</p>
    </li>`;
  return html`<li class="approval" data-run=${a.runId}>
    <h2><code>${v(a.tool)}</code> <span class="muted">in step ${v(a.step)}${a.workflowId ? html` of ${v(a.workflowId)} v${a.version}` : null}</span></h2>
    <p class="why"><b>Why it waits:</b> ${v(a.reason)}${a.cause ? html` <span class="tag">${CAUSE[a.cause]}</span>` : null}</p>
    <p>Asked <${Time} at=${a.requestedAt} /> · run <a href=${`#/runs/${encodeURIComponent(a.runId)}`}><code>${shortHash(a.runId)}</code></a>${a.costCents ? html` · cost ${money(a.costCents)}` : null}</p>
    <h3>Arguments</h3>
    <${Json} value=${a.args} />
    ${a.policy?.trace ? html`<details><summary>Policy trace${a.policy.rule ? html` (rule ${v(a.policy.rule)})` : ''}</summary><${Json} value=${a.policy.trace} /></details>` : null}
    <details><summary>Run history so far</summary><${History} runId=${a.runId} /></details>
    ${
      decided || already
        ? html`<p class="decided" role="status">${decided ?? already}</p>`
        : html`<div class="decide">
            <label>Note <input type="text" maxlength="4000" value=${note} onInput=${(ev: Event) => setNote((ev.target as HTMLInputElement).value)} placeholder="optional, kept in the ledger" /></label>
            <button type="button" class="approve" onClick=${decide('approve')} disabled=${act.busy}>Approve</button>
            <button type="button" class="danger deny" onClick=${decide('deny')} disabled=${act.busy}>Deny</button>
          </div>`
    }
    ${already ? null : html`<${ErrorBox} error=${e} />`}
  </li>`;
}

/** The pending approvals, as the shell reads them for its header count (one poll serves both). */
export type ApprovalsLoad = ReturnType<typeof useLoad<{ approvals: Approval[] }>>;

export function InboxPage({ who, list }: { who: Who; list: ApprovalsLoad }) {
  // Cards this person decided (or tried to) stay, with what happened, after they leave the list.
  const [kept, setKept] = useState<Approval[]>([]);
  const pending = list.value?.approvals ?? [];
  const approvals = [...pending, ...kept.filter((k) => !pending.some((a) => a.runId === k.runId))].sort(
    (x, y) => x.requestedAt.localeCompare(y.requestedAt),
  );
  const decided = (a: Approval) => {
    setKept((k) => (k.some((x) => x.runId === a.runId) ? k : [...k, a]));
    list.reload();
  };
  return html`
    <h1>Approvals</h1>
    <${ErrorBox} error=${list.error} />
    ${
      !list.value
        ? html`<p class="loading">Loading approvals…</p>`
        : approvals.length === 0
          ? html`<${Empty}>Nothing waits for a person. A step waits here when its tool is destructive or a policy rule requires approval.<//>`
          : html`<ul class="approvals">${approvals.map((a) => html`<${Card} key=${a.runId} a=${a} who=${who} onDecided=${decided} />`)}</ul>`
    }`;
}
