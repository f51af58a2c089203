/**
 * The files of a run directory (docs/run-format.md): read whole and bounded, written whole or not
 * at all (into a sibling temporary directory, renamed into place once every file is written, never
 * over an existing, non-empty directory), and `keel verify --dir`'s report of them. Loaded by the
 * commands that use it (evidence-commands.ts), never at start-up.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { ErrorCode, KeelError } from '../core/errors.ts';
import { type RunDirReport, verifyRunDir } from '../core/run-dir/index.ts';
import { EXIT } from './exit-codes.ts';
import { trustKeyFiles } from './governance-options.ts';
import { line, printJson } from './output.ts';
import { readKey } from './writ-files.ts';

/** Bounds on what a directory read may hold: a run directory is evidence, not a dump. */
const MAX_FILES = 200_000;
const MAX_BYTES = 4 * 1024 ** 3;

/** Every file under `dir`, by its path relative to it (with `/`). */
export function readRunDir(dir: string): Map<string, Uint8Array> {
  const root = resolve(dir);
  if (!existsSync(root) || !statSync(root).isDirectory())
    throw new KeelError(ErrorCode.usage, `--dir: ${dir} is not a directory`, { field: 'dir' });
  const files = new Map<string, Uint8Array>();
  let bytes = 0;
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        const b = readFileSync(p);
        bytes += b.length;
        if (files.size >= MAX_FILES || bytes > MAX_BYTES)
          throw new KeelError(
            ErrorCode.payloadTooLarge,
            `${dir} holds more than ${MAX_FILES} files or ${MAX_BYTES} bytes: not a run directory`,
            { field: 'dir' },
          );
        files.set(relative(root, p).split('\\').join('/'), b);
      } else
        throw new KeelError(
          ErrorCode.usage,
          `${join(dir, relative(root, p))} is neither a file nor a directory`,
          {
            field: 'dir',
          },
        );
    }
  };
  walk(root);
  return files;
}

/** Writes the files as `dir`, whole: into a temporary sibling first, renamed into place at the end. */
export function writeRunDir(dir: string, files: ReadonlyMap<string, Uint8Array>): void {
  const target = resolve(dir);
  if (existsSync(target) && (!statSync(target).isDirectory() || readdirSync(target).length > 0))
    throw new KeelError(
      ErrorCode.usage,
      `--out: ${dir} exists and is not an empty directory; it is never overwritten`,
      {
        field: 'out',
      },
    );
  const tmp = `${target}.partial-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  try {
    for (const [file, bytes] of files) {
      const p = join(tmp, ...file.split('/'));
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, bytes);
    }
    if (existsSync(target)) rmSync(target, { recursive: true });
    renameSync(tmp, target);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}

/** The keys of --trust-keys / KEEL_TRUST, for checking writ signatures offline. */
export function trustedKeys(cmd: Command) {
  return trustKeyFiles(cmd.optsWithGlobals() as { trustKeys?: string }).map((f) => readKey(f, 'public'));
}

function reportText(dir: string, r: RunDirReport): string {
  const out: string[] = [];
  for (const run of r.runs) {
    const writs =
      run.writs === 'unchecked'
        ? '; writ signatures not checked (give --trust-keys)'
        : run.writs === 'verified'
          ? '; writ signatures verified'
          : '';
    const missing = run.links
      .filter((l) => !l.here)
      .map((l) => `${l.kind} ${l.runId} (not in this directory)`);
    const covered = run.checkpoint
      ? `; its head at seq ${run.checkpoint.seq} is in checkpoint ${run.checkpoint.checkpoint}`
      : '';
    out.push(
      run.ok
        ? `OK ${run.runId}: ${run.entries} entries, ${run.status}${writs}${covered}${missing.length ? `; links to ${missing.join(', ')}` : ''}`
        : `FAILED ${run.runId}: ${run.problems.map((p) => `${p.file}${p.line ? ` line ${p.line}` : ''}: ${p.message} [${p.code}]`).join('; ')}`,
    );
  }
  for (const p of r.problems)
    out.push(`FAILED ${p.file}${p.line ? ` line ${p.line}` : ''}: ${p.message} [${p.code}]`);
  const good = r.runs.filter((x) => x.ok).length;
  if (r.checkpoint)
    out.push(
      r.checkpoint.under === 'key'
        ? `checkpoint ${r.checkpoint.checkpoint} verified under the checkpoint key (${r.checkpoint.keyId})`
        : `checkpoint ${r.checkpoint.checkpoint} holds under the key it names (${r.checkpoint.keyId}); give --key to trust it`,
    );
  out.push(
    r.ok
      ? `${dir}: ${good} run(s) verified, every file as the manifest records it (manifest ${r.manifestDigest})`
      : `${dir}: does not verify (${good} of ${r.runs.length} runs verified, ${r.problems.length} file problem(s))`,
  );
  return out.join('\n');
}

/** `keel verify --dir DIR [--key public.pem]`: no store is opened (see store-access.ts). */
export function verifyDirCommand(dir: string, cmd: Command, json: boolean, key?: string): number {
  const r = verifyRunDir(readRunDir(dir), {
    trustedKeys: trustedKeys(cmd),
    ...(key !== undefined ? { checkpointKey: readKey(key, 'public') } : {}),
  });
  if (json) printJson({ dir, ...r });
  else line(reportText(dir, r));
  return r.ok ? EXIT.ok : EXIT.verificationFailed;
}
