/**
 * Declared nondeterminism, recorded at the point it is read: every value drawn for a run becomes
 * a `source.drawn` entry before the run uses it. The engine reaches clock, random, ids and env
 * only through here (entry timestamps are the one other clock read, and they are in the entry).
 */
import type { SourceRef } from '../core/spec/index.ts';
import type { RawSources } from '../ports/index.ts';
import type { RunWriter } from './run-writer.ts';

export function drawSource(raw: RawSources, writer: RunWriter, ref: SourceRef): unknown {
  let value: unknown;
  switch (ref.source) {
    case 'clock':
      value = new Date(raw.clock.now()).toISOString();
      break;
    case 'random':
      value = raw.random.float();
      break;
    case 'id':
      value = raw.random.uuid();
      break;
    case 'env':
      value = raw.env.get(ref.name ?? '') ?? null;
      break;
  }
  writer.add(
    'source.drawn',
    ref.name === undefined ? { source: ref.source, value } : { source: ref.source, name: ref.name, value },
  );
  return value;
}
