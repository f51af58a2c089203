/**
 * `keel checkpoint` and `keel audit verify`: signed checkpoints of a tenant's run heads, and the
 * check that every run still matches them (docs/audit.md). The checkpoint key is the operator's,
 * a file kept apart from the store (--key or KEEL_CHECKPOINT_KEY); verification trusts the key
 * each checkpoint names unless --key pins the public key it must be. Given a witness (--witness
 * or KEEL_CHECKPOINT_WITNESS), checkpoint writes each signed checkpoint there too and refuses a
 * store whose chain does not hold the last one it keeps; audit verify checks the store against it.
 */
import { createPublicKey } from 'node:crypto';
import type { Command } from 'commander';
import type { AuditReport } from '../app/checkpoints/index.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';
import type { CheckpointWitness } from '../ports/index.ts';
import { auditCommand } from './audit-command.ts';
import { flagOrEnv, type WithContext } from './context.ts';
import { EXIT } from './exit-codes.ts';
import { line, printJson } from './output.ts';

/** --key, else the environment variable; a checkpoint cannot be made without one. */
function keyFile(flag: string | undefined, env: string, what: string): string {
  const f = flagOrEnv(flag, 'key', env);
  if (f === undefined)
    throw new KeelError(ErrorCode.usage, `--key: give the ${what} (or set ${env})`, { field: 'key' });
  return f;
}

function reportText(r: AuditReport): string {
  const out = r.checkpoints.map(
    (c) =>
      `${c.verified ? 'OK' : 'FAILED'} checkpoint ${c.checkpoint} at ${c.at}: ${c.runs} runs, root ${c.merkleRoot}, key ${c.keyId}`,
  );
  for (const a of r.anomalies) out.push(`${a.kind}: ${a.detail}`);
  const w = r.witness;
  if (w)
    out.push(
      `${w.held ? 'OK' : 'FAILED'} witnessed checkpoint ${w.checkpoint} (${w.hash})${
        w.consistency
          ? `: the head log of checkpoint ${w.consistency.toCheckpoint} extends it (${w.consistency.fromSize} -> ${w.consistency.toSize} heads, consistency proof of ${w.consistency.proof.length} hash(es) ${w.consistency.verified ? 'verified' : 'FAILED'})`
          : w.held
            ? ': the store holds it'
            : ''
      }`,
    );
  out.push(
    r.checkpoints.length === 0 && r.ok
      ? `tenant ${r.tenant}: no runs and no checkpoints yet`
      : r.ok
        ? `tenant ${r.tenant}: ${r.checkpoints.length} checkpoint(s) verified; ${r.runsChecked} run(s) match their checkpointed heads${r.uncovered ? `; ${r.uncovered} run(s) newer than the last checkpoint` : ''}`
        : `tenant ${r.tenant}: does not verify (${r.anomalies.length} anomal${r.anomalies.length === 1 ? 'y' : 'ies'})`,
  );
  return out.join('\n');
}

/** What audit verify is told of the witness: its last checkpoint, or that it holds none. */
export async function witnessOptions(witness: CheckpointWitness | undefined, tenant: string) {
  if (!witness) return {};
  const witnessed = await witness.last(tenant);
  return witnessed ? { witnessed } : { emptyWitness: witness.name };
}

export function registerCheckpointCommands(program: Command, withContext: WithContext): void {
  program
    .command('checkpoint')
    .description(
      "sign a Merkle root of the tenant's run heads with the checkpoint key and chain it to the last checkpoint; refuses to sign over a run that no longer extends its checkpointed head",
    )
    .option(
      '--key <private.pem>',
      'the Ed25519 checkpoint key (env KEEL_CHECKPOINT_KEY), kept apart from the store',
    )
    .action(async (o: { key?: string }, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        // Loaded when the command runs: `keel --help` reads none of it.
        const { makeCheckpoint } = await import('../app/checkpoints/index.ts');
        const { signedRecord } = await import('../core/checkpoint/index.ts');
        const { readKey } = await import('./writ-files.ts');
        const privateKey = readKey(
          keyFile(o.key, 'KEEL_CHECKPOINT_KEY', 'checkpoint private key'),
          'private',
        );
        const witness = ctx.keel.engine.witness;
        const made = await makeCheckpoint(
          ctx.keel.store,
          ctx.tenant,
          { privateKey, publicKey: createPublicKey(privateKey) },
          undefined,
          witness ? { witness } : {},
        );
        const c = made.checkpoint;
        if (ctx.json)
          printJson({
            ...signedRecord(made.checkpoint),
            changed: made.changed,
            ms: made.ms,
            ...(witness ? { witness: witness.name } : {}),
          });
        else
          line(
            `checkpoint ${c.seq} of tenant ${c.tenant}: ${c.runs} runs, root ${c.root}, head log of ${c.treeSize} heads ${c.logRoot}, ${made.changed} head(s) new or moved, signed by key ${c.keyId}${witness ? `, kept by witness ${witness.name}` : ''} (${Math.round(made.ms)} ms)`,
          );
        return EXIT.ok;
      }),
    );

  auditCommand(program)
    .command('verify')
    .description(
      'check the checkpoint chain (links, hashes, signatures), each root and head log against the recorded heads, the last witnessed checkpoint (--witness) against the chain, and every run against its checkpointed heads; exits 5 on any anomaly, a missing chain included',
    )
    .option(
      '--key <public.pem>',
      'the checkpoint public key every checkpoint must be signed with (env KEEL_CHECKPOINT_PUB)',
    )
    .action(async (o: { key?: string }, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const pub = flagOrEnv(o.key, 'key', 'KEEL_CHECKPOINT_PUB');
        const { verifyCheckpoints } = await import('../app/checkpoints/index.ts');
        const { readKey } = await import('./writ-files.ts');
        const r = await verifyCheckpoints(ctx.keel.store, ctx.tenant, {
          ...(pub !== undefined ? { trustedKey: readKey(pub, 'public') } : {}),
          ...(await witnessOptions(ctx.keel.engine.witness, ctx.tenant)),
        });
        if (ctx.json) printJson(r);
        else line(reportText(r));
        return r.ok ? EXIT.ok : EXIT.verificationFailed;
      }),
    );
}
