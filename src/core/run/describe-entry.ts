/**
 * The ledger in plain language: one sentence per entry, for `keel history` and the console.
 * Pure and total: every kind has a sentence, and nothing here reads beyond the entry itself.
 * A value's direction controls are shown as escapes (`⟨U+202E⟩`, visible-text.ts), so no value
 * can reorder what a reader sees of it or reverse the rest of Keel's sentence.
 */
import type { Entry, PayloadOf, PolicyEntry } from '../ledger/index.ts';
import { formatCents, formatMicroUsd } from '../money.ts';
import { visibleText } from '../visible-text.ts';
import type { Delta } from '../world/index.ts';

function money(cents: number): string {
  return `$${formatCents(cents)}`;
}

function argsSummary(args: Readonly<Record<string, unknown>>): string {
  const parts = Object.entries(args).map(([k, v]) => {
    const s =
      typeof v === 'string' ? JSON.stringify(v.length > 40 ? `${v.slice(0, 37)}...` : v) : JSON.stringify(v);
    return `${k}=${s}`;
  });
  return parts.length === 0 ? 'no arguments' : parts.join(', ');
}

export function describeEntry(e: Entry): string {
  return visibleText(sentence(e));
}

function sentence(e: Entry): string {
  switch (e.kind) {
    case 'run.started': {
      const p = e.payload as PayloadOf<'run.started'>;
      const subject = p.event.subject ? ` about ${p.event.subject}` : '';
      const origin = p.forkOf
        ? `, a ${p.forkOf.mode} fork of run ${p.forkOf.runId} inheriting its entries before seq ${p.forkOf.fromSeq}`
        : p.attemptOf
          ? `, a new attempt re-executing run ${p.attemptOf}`
          : '';
      const writ = p.writ ? `, under writ ${p.writ.hash.slice(0, 19)}` : '';
      const mode =
        p.mode === 'shadow'
          ? p.shadowOf
            ? `, a shadow of live run ${p.shadowOf} (simulated: nothing acts, nobody is asked)`
            : ', a shadow on an event the live version does not start (simulated: nothing acts, nobody is asked)'
          : p.mode === 'test'
            ? `, test ${JSON.stringify(p.test?.name ?? '?')} (simulated: nothing acts, ${p.test?.approvals === 'none' ? 'nobody answers approvals' : `approvals ${p.test?.approvals === 'deny' ? 'denied' : 'approved'} by the test`})`
            : '';
      const split = p.split
        ? `, routed by a rollout (bucket ${p.split.bucket}${p.split.stickyBy ? ` by ${p.split.stickyBy}` : ''}: ${p.split.percent}% of events go to v${p.split.to}, the rest to v${p.split.from}${p.split.chosen !== undefined ? `; the bucket chose v${p.split.chosen}, whose trigger does not take this event` : ''})`
        : '';
      return `Started ${p.workflowId} v${p.version} (${p.status}) for event ${p.event.type}${subject}${origin}${mode}${split}${writ}.`;
    }
    case 'source.drawn': {
      const p = e.payload as PayloadOf<'source.drawn'>;
      if (p.source === 'x-model') {
        const m = p.model;
        if (!m) return `A model filled ${p.name ?? 'a slot'}: ${JSON.stringify(p.value)}.`;
        const tries = m.attempts > 1 ? ` in ${m.attempts} attempts` : '';
        const usage = `${m.provider} ${m.model}${tries}, ${m.inputTokens} tokens in, ${m.outputTokens} out, $${formatMicroUsd(m.costMicroUsd)}`;
        if (m.invalid)
          return `A model gave no valid value for ${p.name ?? 'a slot'} (${usage}): ${m.invalid.problem}.`;
        return `A model filled ${p.name ?? 'a slot'}: ${JSON.stringify(p.value)} (${usage}).`;
      }
      return `Read ${p.source}${p.name ? ` ${p.name}` : ''}: ${JSON.stringify(p.value)}.`;
    }
    case 'step.allowed': {
      const p = e.payload as PayloadOf<'step.allowed'>;
      const who = p.approvedBy ? `, approved by ${p.approvedBy}` : '';
      const cost = p.costCents > 0 ? ` (cost ${money(p.costCents)})` : '';
      const how =
        p.mode === 'simulated'
          ? '; simulated, the tool does not act'
          : p.mode === 'recorded'
            ? '; served from the record'
            : '';
      return `Allowed ${p.tool} with ${argsSummary(p.args)}${cost}: all checks passed${who}${governed(p)}${reserved(p)}${how}.`;
    }
    case 'step.refused': {
      const p = e.payload as PayloadOf<'step.refused'>;
      const rules = p.policy ? ` (${consulted(p.policy)})` : '';
      return `Refused ${p.tool}: ${p.message}${rules}.`;
    }
    case 'approval.requested': {
      const p = e.payload as PayloadOf<'approval.requested'>;
      const rules = p.policy ? ` (${consulted(p.policy)})` : '';
      const until = p.deadline
        ? `; if nobody decides by ${p.deadline}, the step's approval deadline applies`
        : '';
      return `Waiting for approval to run ${p.tool} with ${argsSummary(p.args)}: ${p.reason}${rules}${until}.`;
    }
    case 'approval.reminded': {
      const p = e.payload as PayloadOf<'approval.reminded'>;
      return `Reminded ${p.group ?? 'the approvers'} that step ${p.step} still waits for a decision (${p.at}).`;
    }
    case 'approval.escalated': {
      const p = e.payload as PayloadOf<'approval.escalated'>;
      const next = p.next ? `; if nobody decides by ${p.next}, it is denied` : '';
      return `Nobody decided on step ${p.step} by ${p.deadline}: the approval now waits for ${p.to}${next}.`;
    }
    case 'approval.expired': {
      const p = e.payload as PayloadOf<'approval.expired'>;
      return `Nobody decided on step ${p.step} by ${p.deadline}: the approval expired (${p.reason}) and the step is denied.`;
    }
    case 'approval.simulated': {
      const p = e.payload as PayloadOf<'approval.simulated'>;
      const rules = p.policy ? ` (${consulted(p.policy)})` : '';
      return `would_wait_approval: would wait for approval to run ${p.tool} with ${argsSummary(p.args)}: ${p.reason}${rules}; nobody was asked, and ${p.by} assumed it ${p.assumed}.`;
    }
    case 'step.suppressed': {
      const p = e.payload as PayloadOf<'step.suppressed'>;
      return `Suppressed ${p.tool} for step ${p.step}: ${p.reason}.`;
    }
    case 'approval.resolved': {
      const p = e.payload as PayloadOf<'approval.resolved'>;
      return `${p.by} ${p.decision} the proposal${p.note ? `: ${p.note}` : ''}.`;
    }
    case 'step.completed': {
      const p = e.payload as PayloadOf<'step.completed'>;
      const changes = p.deltas?.length ? `; ${p.deltas.map(describeDelta).join(', ')}` : '';
      return `Ran ${p.tool} for step ${p.step}: ${summarizeOutput(p.output)}${changes}.`;
    }
    case 'step.failed': {
      const p = e.payload as PayloadOf<'step.failed'>;
      return `${p.tool} failed in step ${p.step}: ${p.error.message} (${p.error.code}).`;
    }
    case 'run.finished': {
      const p = e.payload as PayloadOf<'run.finished'>;
      if (p.status === 'completed') return 'Run completed.';
      // A cancellation's reason reads "cancelled by <who>: <why>" already.
      if (p.status === 'cancelled') return `Run ${p.reason ?? 'cancelled'}.`;
      return `Run ${p.status}${p.reason ? `: ${p.reason}` : ''}.`;
    }
    case 'run.suspended': {
      const p = e.payload as PayloadOf<'run.suspended'>;
      if (p.reason === 'model_unavailable')
        return `Paused at step ${p.step}: the model provider could not answer (${p.message}). Nothing of step ${p.step} ran; resuming the run asks the model again.`;
      return `Suspended as outcome_unknown: ${p.message}. Nothing re-runs ${p.tool} until someone reconciles step ${p.step}.`;
    }
    case 'step.reconciled': {
      const p = e.payload as PayloadOf<'step.reconciled'>;
      const who = p.via === 'tool' ? `The ${p.by} tool's own check` : p.by;
      const note = p.note ? ` (${p.note})` : '';
      return p.happened
        ? `${who} reconciled step ${p.step}: ${p.tool} did happen and ${summarizeOutput(p.output ?? null)}${note}.`
        : `${who} reconciled step ${p.step}: ${p.tool} did not happen, so the step is proposed again${note}.`;
    }
    case 'run.paused': {
      const p = e.payload as PayloadOf<'run.paused'>;
      return `${p.by} paused the run${p.reason ? `: ${p.reason}` : ''}; no step starts until it is resumed.`;
    }
    case 'run.resumed':
      return `${(e.payload as PayloadOf<'run.resumed'>).by} resumed the run.`;
    case 'step.skipped': {
      const p = e.payload as PayloadOf<'step.skipped'>;
      return `Skipped step ${p.step}: its condition ${p.condition} was false (${readWords(p.reads)}); it called nothing.`;
    }
    case 'branch.chosen': {
      const p = e.payload as PayloadOf<'branch.chosen'>;
      return p.branch === 'else'
        ? `Step ${p.step} took its else branch: no branch's condition held (${readWords(p.reads)}).`
        : `Step ${p.step} took branch ${p.branch + 1}, as ${p.when} held (${readWords(p.reads)}).`;
    }
    case 'parallel.joined': {
      const p = e.payload as PayloadOf<'parallel.joined'>;
      if (p.join === 'all')
        return `The branches of step ${p.step} joined: all finished (${p.finished.join(', ')}, in that order).`;
      const cut = p.cut?.length
        ? `; cut ${p.cut.join(', ')}${p.notRun?.length ? `, whose steps ${p.notRun.join(', ')} never started` : ''}`
        : '';
      return `The branches of step ${p.step} joined: ${p.finished[0]} finished first${cut}.`;
    }
    case 'wait.started': {
      const p = e.payload as PayloadOf<'wait.started'>;
      if (p.kind === 'event')
        return `Waiting at step ${p.step} for a ${p.event} event${p.match ? ` where ${p.match}` : ''} (one arrived since ${p.since} counts)${p.fireAt ? `, at most until ${p.fireAt}` : ''}; nothing holds the run meanwhile.`;
      const what = p.for !== undefined ? `for ${p.for}` : `until ${p.until ?? p.fireAt}`;
      return `Waiting at step ${p.step} ${what}: the timer fires at ${p.fireAt}; nothing holds the run meanwhile.`;
    }
    case 'wait.ended': {
      const p = e.payload as PayloadOf<'wait.ended'>;
      if (p.reason === 'event')
        return `Step ${p.step} took event ${p.event?.id} of ${p.event?.source} (${p.event?.type}, subject ${JSON.stringify(p.event?.subject)}), arrived ${p.arrivedAt}${
          p.reads
            ? ` (read ${Object.entries(p.reads)
                .map(([k, v]) => `${k} = ${JSON.stringify(v)}`)
                .join(', ')})`
            : ''
        }; the run goes on (${p.at}).`;
      if (p.reason === 'timeout')
        return `No event came for step ${p.step} before its timeout; the run goes on (${p.at}).`;
      return `The timer of step ${p.step} fired; the run goes on (${p.at}).`;
    }
    case 'foreach.started': {
      const p = e.payload as PayloadOf<'foreach.started'>;
      if (p.count === 0) return `Step ${p.step} loops over an empty list: its steps run no time.`;
      const times = p.count === 1 ? 'once' : `${p.count} times`;
      return `Step ${p.step} loops over ${p.count} item${p.count === 1 ? '' : 's'}: its steps run ${times}, as ${p.step}[0] to ${p.step}[${p.count - 1}].`;
    }
  }
}

/** "read payload.amount = 75, steps.lookup.output.tier = null", or "it read nothing". */
function readWords(reads: Readonly<Record<string, unknown>>): string {
  const parts = Object.entries(reads).map(([k, v]) => {
    const t = JSON.stringify(v) ?? 'null';
    return `${k} = ${t.length > 40 ? `${t.slice(0, 37)}...` : t}`;
  });
  return parts.length === 0 ? 'it read nothing' : `read ${parts.join(', ')}`;
}

function consulted(p: PolicyEntry): string {
  const n = p.trace.length;
  return `${n} policy rule${n === 1 ? '' : 's'} consulted`;
}

/** "; policy rule reads allowed it" for steps a policy judged (the writ is named by the root), nothing otherwise. */
function governed(p: PayloadOf<'step.allowed'>): string {
  if (!p.policy) return '';
  return p.policy.rule ? `; policy rule ${p.policy.rule} allowed it` : '; the policy default allowed it';
}

/** "; reserved 3 steps, 3 calls of the writ's shared budget" when the allow reserved, nothing otherwise. */
function reserved(p: PayloadOf<'step.allowed'>): string {
  const r = p.reserves;
  if (!r) return '';
  const parts = [
    r.steps > 0 ? `${r.steps} step${r.steps === 1 ? '' : 's'}` : '',
    r.calls > 0 ? `${r.calls} call${r.calls === 1 ? '' : 's'}` : '',
    r.cents > 0 ? money(r.cents) : '',
  ].filter(Boolean);
  return parts.length > 0 ? `; reserved ${parts.join(', ')} of the writ's shared budget` : '';
}

function summarizeOutput(output: unknown): string {
  const s = JSON.stringify(output) ?? 'null';
  return `returned ${s.length > 80 ? `${s.slice(0, 77)}...` : s}`;
}

function describeDelta(d: Delta): string {
  switch (d.op) {
    case 'create':
      return `created ${d.id}`;
    case 'replace':
      return `replaced ${d.id} (was version ${d.expectedVersion})`;
    case 'retract':
      return `retracted ${d.id} (was version ${d.expectedVersion})`;
  }
}
