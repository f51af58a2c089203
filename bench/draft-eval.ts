/**
 * `npm run eval`: the draft compiler on the corpus (corpus/drafts/*.yaml) and the sets kept apart
 * from it. Prints the exact-match rate (canonical hash after normalising names), the step-level
 * accuracy, the rate at which must-ask requests ask, and each miss with what the compiler said
 * instead.
 *
 * The sets kept apart list their misses only when asked (`--heldout-misses`, `--blind-misses`,
 * `--blind2-misses`); the third to tenth blind sets are scored only with `--blind3` ... `--blind14`
 * (their misses with `--blind3-misses` ... `--blind14-misses`), so no change is watched against them.
 *
 * `--compiler model` measures the model-backed compiler the same way, through the same checks: its
 * provider is configured as for `keel` (KEEL_MODEL_PROVIDER, KEEL_MODEL, KEEL_MODEL_BASE_URL ...;
 * docs/models.md), and `--record <file>` keeps what it answered as a responses file, which
 * `KEEL_MODEL_PROVIDER=recorded KEEL_MODEL_RESPONSES=<file>` replays offline (docs/authoring.md).
 */

import { modelProviderFromEnv } from '../src/adapters/model-providers/index.ts';
import { recordingModelProvider } from '../src/adapters/recorded-model/index.ts';
import { toolSteps } from '../src/core/spec/index.ts';
import {
  BLIND_DIR,
  BLIND2_DIR,
  BLIND3_DIR,
  BLIND4_DIR,
  BLIND5_DIR,
  BLIND6_DIR,
  BLIND7_DIR,
  BLIND8_DIR,
  BLIND9_DIR,
  BLIND10_DIR,
  BLIND11_DIR,
  BLIND12_DIR,
  BLIND13_DIR,
  BLIND14_DIR,
  type CorpusFile,
  type CorpusScore,
  FRESH_DIR,
  HELDOUT_DIR,
  loadCorpus,
  scoreCorpus,
  scoreCorpusWith,
  TUNING_DIR,
} from '../test/authoring/draft-corpus.ts';
import { modelCompiler } from '../test/authoring/model-scorer.ts';

const option = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  if (i < 0) return undefined;
  const v = process.argv[i + 1];
  if (v === undefined || v.startsWith('--')) throw new Error(`${name}: expected a value`);
  return v;
};
const compiler = option('--compiler') ?? 'offline';
if (compiler !== 'offline' && compiler !== 'model')
  throw new Error(`--compiler: expected offline or model, got ${JSON.stringify(compiler)}`);
const recordTo = option('--record');
if (recordTo !== undefined && compiler !== 'model') throw new Error('--record: only with --compiler model');
const provider = compiler === 'model' ? modelProviderFromEnv(process.env) : undefined;
if (compiler === 'model' && !provider)
  throw new Error('--compiler model: no model provider is configured (KEEL_MODEL_PROVIDER; docs/models.md)');
const recording = provider && recordTo !== undefined ? recordingModelProvider(provider) : undefined;
const model = provider ? modelCompiler(recording ?? provider) : undefined;
const score = (set: readonly CorpusFile[]): Promise<CorpusScore> =>
  model ? scoreCorpusWith(set, model.compile) : Promise.resolve(scoreCorpus(set));

const files = loadCorpus();
const fresh = loadCorpus(FRESH_DIR);
const heldout = await score(loadCorpus(HELDOUT_DIR));
const tuning = await score(loadCorpus(TUNING_DIR));
const blind = await score(loadCorpus(BLIND_DIR));
const blind2 = await score(loadCorpus(BLIND2_DIR));
// The later blind sets are scored only when asked for (`--blind3` ... `--blind14`, their misses
// with `--blind3-misses` ...): each figure is read once per change, at the end, never watched.
const LATER_SETS = [
  {
    flag: 'blind3',
    dir: BLIND3_DIR,
    title:
      'third blind set for issue 30 (corpus/drafts-blind3: people-typed over the ops desk and the invoice-approval and content-moderation templates, written without seeing the compiler or the other sets; never tuned on; not in the suite bar; its figures are in docs/authoring.md)',
  },
  {
    flag: 'blind4',
    dir: BLIND4_DIR,
    title:
      'fourth blind set for issue 30 (corpus/drafts-blind4: people-typed over the data-export-request and support-refunds templates and a people-ops desk of its own, written without seeing the compiler or the other sets; not in the suite bar; its unseen figure, before and after tuning on the third set, 0/45 exact, 32/32 asked, 1 publishable money-misdraft; then its misses were read, so this figure is not unseen)',
  },
  {
    flag: 'blind5',
    dir: BLIND5_DIR,
    title:
      'fifth blind set for issue 30 (corpus/drafts-blind5: people-typed over the support-refunds, expense-report and oncall-escalation templates and a billing-ops desk of its own, written without seeing the compiler or the other sets; never tuned on; not in the suite bar; its figures are in docs/authoring.md)',
  },
  {
    flag: 'blind6',
    dir: BLIND6_DIR,
    title:
      'sixth blind set for issue 30 (corpus/drafts-blind6: people-typed over the ticket-triage, invoice-approval and access-request templates and a store-ops desk of its own, written without seeing the compiler or the other sets; not in the suite bar; its figures are in docs/authoring.md)',
  },
  {
    flag: 'blind7',
    dir: BLIND7_DIR,
    title:
      'seventh blind set for issue 30 (corpus/drafts-blind7: people-typed over the content-moderation, data-export-request and expense-report templates and a facilities desk of its own, written without seeing the compiler or the other sets; not in the suite bar; its figures are in docs/authoring.md)',
  },
  {
    flag: 'blind8',
    dir: BLIND8_DIR,
    title:
      'eighth blind set for issue 30 (corpus/drafts-blind8: people-typed over the support-refunds, oncall-escalation and invoice-approval templates and a subscriptions desk of its own, written without seeing the compiler or the other sets; not in the suite bar; its figures are in docs/authoring.md)',
  },
  {
    flag: 'blind9',
    dir: BLIND9_DIR,
    title:
      'ninth blind set for issue 30 (corpus/drafts-blind9: people-typed over the ticket-triage, access-request and expense-report templates and a shipping desk of its own, written without seeing the compiler or the other sets; not in the suite bar; its figures are in docs/authoring.md)',
  },
  {
    flag: 'blind10',
    dir: BLIND10_DIR,
    title:
      'tenth blind set for issue 30 (corpus/drafts-blind10: people-typed over the support-refunds, content-moderation and data-export-request templates and a seller-payouts desk of its own, written without seeing the compiler or the other sets; not in the suite bar; its figures are in docs/authoring.md)',
  },
  {
    flag: 'blind11',
    dir: BLIND11_DIR,
    title:
      'eleventh blind set for issue 30 (corpus/drafts-blind11: people-typed over the oncall-escalation, ticket-triage and expense-report templates and an insurance claims desk of its own, written without seeing the compiler or the other sets; not in the suite bar; its figures are in docs/authoring.md)',
  },
  {
    flag: 'blind12',
    dir: BLIND12_DIR,
    title:
      'twelfth blind set for issue 30 (corpus/drafts-blind12: people-typed over the support-refunds and access-request templates and a letting agency desk of its own, written without seeing the compiler or the other sets; not in the suite bar; its figures are in docs/authoring.md)',
  },
  {
    flag: 'blind13',
    dir: BLIND13_DIR,
    title:
      'thirteenth blind set for issue 30 (corpus/drafts-blind13: people-typed over the invoice-approval and content-moderation templates and a hotel front desk of its own, written without seeing the compiler or the other sets; not in the suite bar; its figures are in docs/authoring.md)',
  },
  {
    flag: 'blind14',
    dir: BLIND14_DIR,
    title:
      'fourteenth blind set for issue 30 (corpus/drafts-blind14: people-typed over the expense-report and ticket-triage templates and a veterinary clinic desk of its own, written without seeing the compiler or the other sets; not in the suite bar; its figures are in docs/authoring.md)',
  },
] as const;
const later: { title: string; score: CorpusScore; misses: boolean }[] = [];
for (const x of LATER_SETS) {
  const misses = process.argv.includes(`--${x.flag}-misses`);
  if (misses || process.argv.includes(`--${x.flag}`))
    later.push({ title: x.title, score: await score(loadCorpus(x.dir)), misses });
}
// The held-out set's misses are listed only when asked for by name: it is not for tuning.
const heldoutMisses = process.argv.includes('--heldout-misses');
// So are the blind sets': read them only once a change is final, never to tune on.
const blindMisses = process.argv.includes('--blind-misses');
const blind2Misses = process.argv.includes('--blind2-misses');
const s = await score(files);
const freshScore = await score(fresh);
const heldOutFiles = await score(files.filter((f) => f.heldOut));
const pct = (a: number, b: number) => (b === 0 ? 'n/a' : `${((100 * a) / b).toFixed(1)}%`);
const verbose = process.argv.includes('--misses');
if (verbose || heldoutMisses || blindMisses || blind2Misses || later.some((x) => x.misses))
  for (const r of [
    ...s.results,
    ...freshScore.results,
    ...tuning.results,
    ...(heldoutMisses ? heldout.results : []),
    ...(blindMisses ? blind.results : []),
    ...(blind2Misses ? blind2.results : []),
    ...later.flatMap((x) => (x.misses ? x.score.results : [])),
  ]) {
    const ok = r.c.ask ? r.asked : r.exact;
    if (ok) continue;
    process.stdout.write(`MISS ${r.c.file}: ${r.c.request}\n`);
    if (r.c.ask) process.stdout.write(`  expected a question (${r.c.why ?? ''}); got a publishable draft\n`);
    else {
      const got = r.draft.spec ?? r.draft.partial;
      process.stdout.write(
        `  got: ${got ? JSON.stringify({ triggers: got.triggers, steps: toolSteps(got).map((x) => ({ tool: x.tool, args: x.args })), limits: got.limits }) : 'no spec'}\n`,
      );
      for (const q of r.draft.questions) process.stdout.write(`  asked: ${q.question}\n`);
    }
  }
const report = (title: string, x: CorpusScore) =>
  [
    `${title}: ${x.results.length} requests (${x.specCases} with an expected spec, ${x.askCases} must ask)`,
    `  exact match:    ${x.exact}/${x.specCases} = ${pct(x.exact, x.specCases)}`,
    `  step accuracy:  ${x.stepsRight}/${x.stepsExpected} = ${pct(x.stepsRight, x.stepsExpected)}`,
    `  must-ask asked: ${x.asked}/${x.askCases} = ${pct(x.asked, x.askCases)}`,
  ].join('\n');
const counts = (x: CorpusScore) =>
  `  partial: ${x.partial}, needless question: ${x.needlessQuestion}, right question: ${x.asked}, wrong draft: ${x.wrongDraft}, invented tool: ${x.invented}, publishable money-misdrafts: ${x.moneyMisdraft}`;
process.stdout.write(
  `${[
    report('draft corpus', s),
    report(
      '  of which holdout-*.yaml (written after the first tuning; measured once before the fixes they prompted: 14/18 exact, 25/27 steps, 6/8 asked; see docs/authoring.md)',
      heldOutFiles,
    ),
    report("tuning for issue 30 (corpus/drafts-tuning: the issue's own examples; tuned on)", tuning),
    report(
      'held out for issue 30 (corpus/drafts-heldout: people-typed; its unseen before/after figures are in docs/authoring.md; since then its misses were read twice (safety fixes, then general readings), so this figure is not unseen; not in the suite bar)',
      heldout,
    ),
    counts(heldout),
    report(
      'blind for issue 30 (corpus/drafts-blind: people-typed, written without seeing the compiler or the other sets; never tuned on; not in the suite bar; first, unseen figure 13/45 exact, 22/25 asked, 3 publishable money-misdrafts, then its safety misses were read and fixed, so this figure is not unseen)',
      blind,
    ),
    counts(blind),
    report(
      'second blind set for issue 30 (corpus/drafts-blind2: people-typed over the access-request and ticket-triage templates and the support desk, written without seeing the compiler or the other sets; never tuned on; not in the suite bar; its figures are in docs/authoring.md)',
      blind2,
    ),
    counts(blind2),
    ...later.flatMap((x) => [report(x.title, x.score), counts(x.score)]),
    report('fresh (corpus/fresh: written before issue 30, never tuned on; not in the suite bar)', freshScore),
  ].join('\n')}\n`,
);
if (model) {
  process.stdout.write(
    `compiler: model (the same checks as offline); requests the provider could not answer: ${model.failed.length}\n`,
  );
  for (const f of model.failed.slice(0, 5))
    process.stdout.write(`  ${JSON.stringify(f.request)}: ${f.message.slice(0, 200)}\n`);
}
if (recording && recordTo !== undefined) {
  recording.save(recordTo);
  process.stdout.write(`recorded ${recording.recorded().length} answers in ${recordTo}\n`);
}
