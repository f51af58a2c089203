/**
 * The store-backed writ commands: `keel writs trust | trusted | untrust | revoke`. They act on
 * the tenant of the command (--tenant or KEEL_TENANT, required: trust is never granted to the
 * `default` tenant by accident) in the store every command opens. Only public keys are read here;
 * a revocation names a writ file (its last link) or a writ hash.
 */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import pc from 'picocolors';
import { actor, namedTenant, type WithContext } from './context.ts';
import { readText } from './input.ts';
import { line, printJson } from './output.ts';

export function registerWritTrustCommands(program: Command, withContext: WithContext): void {
  const writs = program.commands.find((c) => c.name() === 'writs') ?? program.command('writs');

  writs
    .command('trust')
    .description("store an Ed25519 public key as trusted to sign --tenant's writs")
    .argument('<public.pem>')
    .option('--as <name>', 'who adds it (default KEEL_USER, then the OS user)')
    .action(async (file: string, o: { as?: string }, cmd: Command) =>
      withContext(cmd, async (ctx, g) => {
        const tenant = namedTenant(ctx, g, 'writ trust');
        const r = await ctx.keel.writs.trust(tenant, readText(file, 'public key'), actor(o.as));
        if (ctx.json) printJson(r);
        else
          line(
            r.created
              ? `trusted key ${r.record.keyId} for tenant ${tenant}`
              : `key ${r.record.keyId} was stored before${r.record.retiredAt ? pc.red(` (retired ${r.record.retiredAt}; it stays retired)`) : ''}`,
          );
        return undefined;
      }),
    );

  writs
    .command('trusted')
    .description("list --tenant's stored trusted writ keys, retired ones included")
    .action(async (_o: unknown, cmd: Command) =>
      withContext(cmd, async (ctx, g) => {
        const tenant = namedTenant(ctx, g, 'writ trust');
        const keys = await ctx.keel.writs.trusted(tenant);
        if (ctx.json) printJson(keys);
        else {
          if (keys.length === 0) line(`no stored writ keys in tenant ${tenant}`);
          for (const k of keys)
            line(
              `${k.keyId}  added ${k.addedAt} by ${k.addedBy}${k.retiredAt ? `  ${pc.red(`retired ${k.retiredAt}`)}` : ''}`,
            );
        }
        return undefined;
      }),
    );

  writs
    .command('untrust')
    .description('retire a stored key of --tenant: writs it signed stop verifying (kept, never deleted)')
    .argument('<keyId>', 'the key id `writs trusted` prints (sha256:...)')
    .action(async (keyId: string, _o: unknown, cmd: Command) =>
      withContext(cmd, async (ctx, g) => {
        const tenant = namedTenant(ctx, g, 'writ trust');
        const k = await ctx.keel.writs.untrust(tenant, keyId);
        if (ctx.json) printJson(k);
        else line(`retired key ${keyId} of tenant ${tenant} at ${k.retiredAt}`);
        return undefined;
      }),
    );

  writs
    .command('revoke')
    .description('revoke a writ of --tenant (a writ file, or its hash) and every writ derived from it')
    .argument('<writ-file-or-hash>')
    .option('--reason <text>', 'why, recorded with the revocation')
    .option('--as <name>', 'who revokes it (default KEEL_USER, then the OS user)')
    .action(async (target: string, o: { reason?: string; as?: string }, cmd: Command) =>
      withContext(cmd, async (ctx, g) => {
        const tenant = namedTenant(ctx, g, 'writ trust');
        const { readChain } = await import('./writ-files.ts');
        const what =
          target.startsWith('sha256:') && !existsSync(target) ? target : { chain: readChain(target) };
        const r = await ctx.keel.writs.revoke(tenant, what, actor(o.as), o.reason);
        if (ctx.json) printJson(r);
        else
          line(
            r.created
              ? `revoked writ ${r.record.hash} in tenant ${tenant}: it and every writ derived from it refuse from now on`
              : `writ ${r.record.hash} was revoked before, at ${r.record.at} by ${r.record.by}`,
          );
        return undefined;
      }),
    );
}
