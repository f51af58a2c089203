/** A spec as YAML, as `keel draft` prints a draft (keys in the spec's order, lines never folded). */
import { stringify } from 'yaml';

export function specYaml(spec: unknown): string {
  return stringify(spec, { lineWidth: 0 }).trimEnd();
}
