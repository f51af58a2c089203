/**
 * The API key commands for `keel serve`: `keel keys create | ls | revoke`. A key is printed once,
 * by `create`, and never again: the store keeps only its hash, and `ls` shows ids, subjects and
 * times. The tenant must be named (--tenant or KEEL_TENANT): a key is never minted for the
 * `default` tenant by accident. The store is opened like every other command's (--store, KEEL_STORE,
 * KEEL_DATABASE_URL).
 */
import type { Command } from 'commander';
import pc from 'picocolors';
import { namedTenant, type WithContext } from './context.ts';
import { line, printJson } from './output.ts';

export function registerKeysCommands(program: Command, withContext: WithContext): void {
  const keys = program.command('keys').description('API keys for `keel serve`, one tenant each');

  keys
    .command('create')
    .description('mint an API key for --tenant; the key is printed once and only its hash is stored')
    .option('--subject <name>', 'who acts with the key (default key-<keyId>)')
    .option('--human', "a person's key: may promote versions and override gates (default: an automation's)")
    .action(async (o: { subject?: string; human?: boolean }, cmd: Command) =>
      withContext(cmd, async (ctx, g) => {
        const kind = o.human === true ? 'human' : 'service';
        const created = await ctx.keel.keys.create(namedTenant(ctx, g, 'API keys'), o.subject, kind);
        if (ctx.json) printJson(created);
        else {
          line(
            `created ${kind === 'human' ? "a person's" : "an automation's"} API key ${created.keyId} for tenant ${created.tenant}, subject ${created.subject}`,
          );
          line(created.key);
          line(pc.yellow('this key is shown once: Keel stores only its hash, so keep it now'));
        }
        return undefined;
      }),
    );

  keys
    .command('ls')
    .description("list --tenant's API keys (ids, subjects, times; never the keys)")
    .action(async (_o: unknown, cmd: Command) =>
      withContext(cmd, async (ctx, g) => {
        const tenant = namedTenant(ctx, g, 'API keys');
        const list = await ctx.keel.keys.list(tenant);
        if (ctx.json) printJson(list);
        else {
          if (list.length === 0) line(`no API keys in tenant ${tenant}`);
          for (const k of list)
            line(
              `${k.keyId}  ${k.subject}  ${k.kind}  created ${k.createdAt}${k.revokedAt ? `  ${pc.red(`revoked ${k.revokedAt}`)}` : ''}`,
            );
        }
        return undefined;
      }),
    );

  keys
    .command('revoke')
    .description('revoke an API key of --tenant: it stops resolving at once')
    .argument('<keyId>', 'the key id `keys create` and `keys ls` print')
    .action(async (keyId: string, _o: unknown, cmd: Command) =>
      withContext(cmd, async (ctx, g) => {
        const tenant = namedTenant(ctx, g, 'API keys');
        await ctx.keel.keys.revoke(tenant, keyId);
        if (ctx.json) printJson({ keyId, tenant, revoked: true });
        else line(`revoked API key ${keyId} in tenant ${tenant}`);
        return undefined;
      }),
    );
}
