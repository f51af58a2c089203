/**
 * `keel export`, `keel import` and `keel verify --dir`: runs as portable run directories an auditor
 * takes away (docs/run-format.md). The files are read and written here; what they hold and how
 * they verify is core/run-dir's, what goes out of and into a store app/run-dirs.ts's; reading and
 * writing the files, and the verify report, run-dir-files.ts's. Each is loaded when its command
 * runs, so `keel --help` reads none of them.
 */
import type { Command } from 'commander';
import { flagOrEnv, type WithContext } from './context.ts';
import { EXIT } from './exit-codes.ts';
import { line, printJson } from './output.ts';

/** The files side (run-dir-files.ts), loaded when a command runs; the store side is app/run-dirs.ts. */
const files = () => import('./run-dir-files.ts');

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
          const { exportRunDir } = await import('../app/run-dirs.ts');
          const { writeRunDir } = await files();
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
        const { importRunDir } = await import('../app/run-dirs.ts');
        const { readRunDir, trustedKeys } = await files();
        const r = await importRunDir(ctx.keel.store, readRunDir(dir), {
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
        const { requireInstantBound } = await import('../core/instant.ts');
        const { retainRuns } = await import('../app/retention.ts');
        const { readRunDir } = await files();
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
          line(
            `${r.dryRun ? 'would remove' : 'removed'} ${r.arrivalsRemoved} arrival(s) (events kept for waits) that arrived before ${r.arrivalsBefore}`,
          );
        }
        return EXIT.ok;
      }),
    );
}
