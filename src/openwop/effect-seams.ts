/**
 * The effect-seam manifest (`GET /host/effect-seams`, replay.md §The effect-seam manifest): every
 * outbound path Keel's node runtime can reach, each guarded on a replay fork. Keel's nodes reach
 * the outside world at two seams only — a registered tool's handler and a model provider — and
 * a replay fork calls neither: every tool call and every model answer is served from the source
 * run's ledger (recorded-effects.ts), and one with nothing recorded fails closed with
 * `replay_source_missing`. A tool pack's handler may leave by any wire mechanism, so that seam is
 * listed once per mechanism a tool can use; they are one guard.
 *
 * `host.build` names the running code: the SHA-256 over the files of the module tree it was loaded
 * from (path and content, in path order), computed once per process.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENGINE_VERSION } from '../app/index.ts';

export interface EffectSeam {
  readonly seam: string;
  readonly kind: 'http' | 'smtp' | 'queue' | 'storage' | 'provider-sdk' | 'webhook-fanout' | 'other';
  readonly guarded: true;
  readonly guardedBy: string;
  readonly branchReFires?: boolean;
  readonly note?: string;
}

const RECORDED =
  'keel.recorded-effects: on a replay fork the call is never made; its outcome is served from the source ledger, keyed (source run, step, execution n), and with none recorded the step fails replay_source_missing';

const TOOL_NOTE =
  'a registered tool handler (a tool pack or a core tool) leaving the host by this mechanism; every tool call passes the same seam';

export const EFFECT_SEAMS: readonly EffectSeam[] = [
  {
    seam: 'keel.tool.http',
    kind: 'http',
    guarded: true,
    guardedBy: RECORDED,
    branchReFires: true,
    note: TOOL_NOTE,
  },
  {
    seam: 'keel.tool.queue',
    kind: 'queue',
    guarded: true,
    guardedBy: RECORDED,
    branchReFires: true,
    note: TOOL_NOTE,
  },
  {
    seam: 'keel.tool.storage',
    kind: 'storage',
    guarded: true,
    guardedBy: RECORDED,
    branchReFires: true,
    note: TOOL_NOTE,
  },
  {
    seam: 'keel.model',
    kind: 'provider-sdk',
    guarded: true,
    guardedBy:
      'keel.recorded-effects: a model answer is a declared source (x-model) drawn once and recorded; a replay fork serves the recorded answer and never asks the provider',
    branchReFires: true,
    note: 'the model provider a planner asks for the open slots of a step',
  },
];

let build: string | undefined;

/** The SHA-256 (hex) over the running module tree's files: the `artifact-sha256` of this build. */
function buildId(): string {
  if (build) return build;
  const root = fileURLToPath(new URL('..', import.meta.url));
  const hash = createHash('sha256');
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true })
      .flatMap((d) => (d.isDirectory() ? walk(join(dir, d.name)) : [join(dir, d.name)]))
      .sort();
  for (const file of walk(root)) {
    hash.update(relative(root, file).split('\\').join('/'));
    hash.update('\u0000');
    hash.update(readFileSync(file));
  }
  build = hash.digest('hex');
  return build;
}

export function effectSeamManifest(): Record<string, unknown> {
  return {
    manifestVersion: '1',
    host: {
      name: `keel/${ENGINE_VERSION.split('/')[1] ?? ENGINE_VERSION}`,
      build: { kind: 'artifact-sha256', id: buildId() },
    },
    seams: EFFECT_SEAMS,
  };
}
