/**
 * How the console shows a value it did not write: its Unicode direction controls as escapes
 * (`⟨U+202E⟩`, the same function as `keel history`: src/core/visible-text.ts), and isolated in a
 * `<bdi>`, so no value can reorder what a reader sees of it or of the sentence around it. Every
 * API answer is read through `visibleValue` (api.ts); `v` isolates a value where a sentence of
 * the console's own interpolates it, or a whole sentence of Keel's where a page shows one.
 */
import { visibleText } from '../../src/core/visible-text.ts';
import { html } from './html.ts';

export { visibleText, visibleValue } from '../../src/core/visible-text.ts';

/** `x` isolated from the text around it, its direction controls shown as escapes. */
export function v(x: unknown) {
  return html`<bdi>${typeof x === 'string' ? visibleText(x) : x}</bdi>`;
}
