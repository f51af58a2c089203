/**
 * A worker thread for the YAML depth test (core/spec/yaml-depth.test.ts): parses each text it is
 * given as a spec on whatever stack the test gave it, and answers how each was refused.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { isKeelError } from '../core/errors.ts';
import { parseSpec } from '../core/spec/index.ts';

const answers = (workerData as string[]).map((text) => {
  try {
    parseSpec(text, 'deep.yaml');
    return 'accepted';
  } catch (e) {
    if (!isKeelError(e)) return `${(e as Error).name}: ${(e as Error).message}`;
    const named = e.details.limit === 'maxDepth' && String(e.details.field).startsWith('steps[0].args.a');
    return `${e.code}${named ? ' maxDepth named' : ` ${e.message}`}`;
  }
});
parentPort?.postMessage(answers);
