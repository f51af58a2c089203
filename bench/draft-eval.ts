/**
 * `npm run eval`: the offline draft compiler on the corpus (corpus/drafts/*.yaml). Prints the
 * exact-match rate (canonical hash after normalising names), the step-level accuracy, the rate at
 * which must-ask requests ask, and each miss with what the compiler said instead.
 */

import { toolSteps } from '../src/core/spec/index.ts';
import {
  BLIND_DIR,
  type CorpusScore,
  FRESH_DIR,
  HELDOUT_DIR,
  loadCorpus,
  scoreCorpus,
  TUNING_DIR,
} from '../test/authoring/draft-corpus.ts';

const files = loadCorpus();
const fresh = loadCorpus(FRESH_DIR);
const heldout = scoreCorpus(loadCorpus(HELDOUT_DIR));
const tuning = scoreCorpus(loadCorpus(TUNING_DIR));
const blind = scoreCorpus(loadCorpus(BLIND_DIR));
// The held-out set's misses are listed only when asked for by name: it is not for tuning.
const heldoutMisses = process.argv.includes('--heldout-misses');
// So are the blind set's: read them only once a change is final, never to tune on.
const blindMisses = process.argv.includes('--blind-misses');
const s = scoreCorpus(files);
const pct = (a: number, b: number) => (b === 0 ? 'n/a' : `${((100 * a) / b).toFixed(1)}%`);
const verbose = process.argv.includes('--misses');
if (verbose || heldoutMisses || blindMisses)
  for (const r of [
    ...s.results,
    ...scoreCorpus(fresh).results,
    ...tuning.results,
    ...(heldoutMisses ? heldout.results : []),
    ...(blindMisses ? blind.results : []),
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
process.stdout.write(
  `${[
    report('draft corpus', s),
    report(
      '  of which holdout-*.yaml (written after the first tuning; measured once before the fixes they prompted: 14/18 exact, 25/27 steps, 6/8 asked; see docs/authoring.md)',
      scoreCorpus(files.filter((f) => f.heldOut)),
    ),
    report("tuning for issue 30 (corpus/drafts-tuning: the issue's own examples; tuned on)", tuning),
    report(
      'held out for issue 30 (corpus/drafts-heldout: people-typed; its unseen before/after figures are in docs/authoring.md; since then its misses were read twice (safety fixes, then general readings), so this figure is not unseen; not in the suite bar)',
      heldout,
    ),
    `  partial: ${heldout.partial}, needless question: ${heldout.needlessQuestion}, right question: ${heldout.asked}, wrong draft: ${heldout.wrongDraft}, invented tool: ${heldout.invented}, publishable money-misdrafts: ${heldout.moneyMisdraft}`,
    report(
      'blind for issue 30 (corpus/drafts-blind: people-typed, written without seeing the compiler or the other sets; never tuned on; not in the suite bar; first, unseen figure 13/45 exact, 22/25 asked, 3 publishable money-misdrafts, then its safety misses were read and fixed, so this figure is not unseen)',
      blind,
    ),
    `  partial: ${blind.partial}, needless question: ${blind.needlessQuestion}, right question: ${blind.asked}, wrong draft: ${blind.wrongDraft}, invented tool: ${blind.invented}, publishable money-misdrafts: ${blind.moneyMisdraft}`,
    report(
      'fresh (corpus/fresh: written before issue 30, never tuned on; not in the suite bar)',
      scoreCorpus(fresh),
    ),
  ].join('\n')}\n`,
);
