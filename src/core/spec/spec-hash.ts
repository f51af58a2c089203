/**
 * The spec hash: the content address of a workflow spec, independent of its status.
 *
 * `status` is lifecycle (changed by promotion), so it is left out: promoting a version never
 * changes what it is. Key order and YAML/JSON formatting never matter (canonical form).
 */
import { type Digest, hashOf } from '../canonical/index.ts';
import type { WorkflowSpec } from './workflow-spec.ts';

export function specHash(spec: WorkflowSpec): Digest {
  const { status: _status, ...content } = spec;
  return hashOf(content);
}
