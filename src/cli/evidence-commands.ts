/**
 * `keel export`, `keel import` and `keel verify --dir`: runs as portable run directories an auditor
 * takes away (docs/run-format.md). The files are read and written here; what they hold and how
 * they verify is core/run-dir's, what goes out of and into a store app/run-dirs.ts's.
 *
 * A directory is written whole or not at all: into a sibling temporary directory, renamed into
 * place once every file is written, and never over an existing, non-empty directory.
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
import { retainRuns } from '../app/retention.ts';
import { exportRunDir, importRunDir } from '../app/run-dirs.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';
import { requireInstantBound } from '../core/instant.ts';
import { type RunDirReport, verifyRunDir } from '../core/run-dir/index.ts';
import { flagOrEnv, type WithContext } from './context.ts';
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
function writeRunDir(dir: string, files: ReadonlyMap<string, Uint8Array>): void {
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
function trustedKeys(cmd: Command) {
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

export function registerEvidenceCommands(program: Command, withContext: WithContext): void {
  program
    .command('export')
    .description(
      "write runs as a portable run directory (ledgers byte for byte, pinned specs, writ chains, a manifest of every file's SHA-256) that `keel verify --dir` checks without a store",
    )
    .argument('[runs...]', 'run ids (or --workflow)')
    .requiredOption('--out <dir>', 'the directory to write (must not exist, or be empty)')
    .option('--workflow <id>', 'every run of this workflow (oldest first)')
    .option('--since <instant>', 'with --workflow: runs created at or after this time')
    .option('--until <instant>', 'with --workflow: runs created before this time')
    .option(
      '--linked',
      'also the runs they name: sources of forks and attempts, parents, live runs shadowed, delegated children',
    )
    .action(
      async (
        runIds: string[],
        o: { out: string; workflow?: string; since?: string; until?: string; linked?: boolean },
        cmd: Command,
      ) =>
        withContext(cmd, async (ctx) => {
          const progress = !ctx.json && process.stderr.isTTY;
          const exported = await exportRunDir(
            ctx.keel,
            ctx.tenant,
            {
              runIds,
              ...(o.workflow !== undefined ? { workflowId: o.workflow } : {}),
              ...(o.since !== undefined ? { since: o.since } : {}),
              ...(o.until !== undefined ? { until: o.until } : {}),
              ...(o.linked ? { linked: true } : {}),
            },
            progress ? { onRun: (_id, n) => process.stderr.write(`\rexported ${n} run(s)`) } : {},
          );
          if (progress) process.stderr.write('\n');
          writeRunDir(o.out, exported.files);
          const entries = exported.manifest.runs.reduce((n, r) => n + r.entries, 0);
          if (ctx.json)
            printJson({
              dir: o.out,
              runs: exported.manifest.runs.map((r) => r.runId),
              entries,
              files: exported.files.size,
              manifestDigest: exported.manifestDigest,
            });
          else
            line(
              `exported ${exported.manifest.runs.length} run(s), ${entries} entries, to ${o.out} (manifest ${exported.manifestDigest}; check it with: keel verify --dir ${o.out})`,
            );
          return EXIT.ok;
        }),
    );

  program
    .command('import')
    .description(
      'load the runs of a run directory into the store: the directory is verified first; runs that fail, have not finished, or collide with a different run are refused, never written',
    )
    .argument('<dir>', 'a directory `keel export` wrote')
    .action(async (dir: string, _o: unknown, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const files = readRunDir(dir);
        const r = await importRunDir(ctx.keel.store, files, {
          trustedKeys: trustedKeys(cmd),
          ...(flagOrEnv((cmd.optsWithGlobals() as { tenant?: string }).tenant, 'tenant', 'KEEL_TENANT') !==
          undefined
            ? { tenant: ctx.tenant }
            : {}),
        });
        if (ctx.json)
          printJson({ dir, tenant: r.tenant, imported: r.imported, present: r.present, refused: r.refused });
        else {
          for (const x of r.refused) line(`refused ${x.runId}: ${x.message} [${x.code}]`);
          line(
            `imported ${r.imported.length} run(s) into tenant ${r.tenant}${r.present.length ? `, ${r.present.length} already present` : ''}${r.refused.length ? `, ${r.refused.length} refused` : ''}`,
          );
        }
        return r.refused.length > 0 ? EXIT.verificationFailed : EXIT.ok;
      }),
    );

  program
    .command('retention')
    .description(
      "remove the tenant's finished runs created before --before, once the verified export in --dir holds them at their heads and the last checkpoint covers them; the checkpoint chain keeps proving they existed",
    )
    .requiredOption('--before <time>', 'remove runs created before this RFC 3339 instant')
    .requiredOption('--dir <dir>', 'the run directory `keel export` wrote of them (verified first, whole)')
    .option('--dry-run', 'say what would be removed and why the rest stays; remove nothing')
    .action(async (o: { before: string; dir: string; dryRun?: boolean }, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const before = requireInstantBound('--before', o.before);
        const r = await retainRuns(ctx.keel.store, ctx.tenant, readRunDir(o.dir), {
          before,
          ...(o.dryRun ? { dryRun: true } : {}),
        });
        if (ctx.json) printJson(r);
        else {
          for (const k of r.kept) line(`kept ${k.runId}: ${k.reason}`);
          line(
            `${r.dryRun ? 'would remove' : 'removed'} ${r.removed.length} run(s) of tenant ${r.tenant} created before ${before}${r.kept.length ? `; ${r.kept.length} kept` : ''} (export manifest ${r.manifestDigest})`,
          );
        }
        return EXIT.ok;
      }),
    );
}
