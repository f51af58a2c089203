/**
 * Which commands may create the store, which write to it and which only read it: one table, so a
 * mistyped --store never creates an empty store, and an archived store on read-only media can
 * still be read. A command not named here writes (it needs an existing store it can write).
 *
 * - create: `init`, `migrate`, `publish` (a first publish), `keys create`, `writs trust`, `import`
 *   (the commands that put the first things into a store) and `serve --create`. They say so when they
 *   created it ("created store <path>", on stderr).
 * - read: the commands that only look. They open the store read-only when this process cannot write
 *   where it lies.
 * - none: `validate` checks a spec against the registered tools, `tools ls` lists them, and `verify --dir` a run
 *   directory from its files; they open no store at all.
 * - write: everything else (emit, run, promote, approve, deny, fork, rerun, cancel, pause, unpause,
 *   reconcile, worker, serve, keys revoke, writs untrust | revoke, ...). A missing store is
 *   `store_not_found`, one this process cannot write `store_unavailable` (both exit 6).
 */
import type { Command } from 'commander';
import type { StoreAccess } from '../app/index.ts';

export type CommandAccess = StoreAccess | 'none';

type AccessRule = CommandAccess | ((opts: Record<string, unknown>, args: readonly string[]) => CommandAccess);

const ACCESS: Readonly<Record<string, AccessRule>> = {
  init: 'create',
  migrate: 'create',
  publish: 'create',
  'keys create': 'create',
  'writs trust': 'create',
  serve: (o: Record<string, unknown>) => (o.create === true ? 'create' : 'write'),
  validate: 'none',
  'tools ls': 'none',
  'runs ls': 'read',
  'audit ls': 'read',
  'audit verify': 'read',
  'runs show': 'read',
  'events show': 'read',
  'events conflicts': 'read',
  'events ls': 'read',
  'events redeliver': 'write',
  history: 'read',
  verify: (o: Record<string, unknown>) => (o.dir !== undefined ? 'none' : 'read'),
  export: 'read',
  import: 'create',
  replay: 'read',
  'approvals ls': 'read',
  status: 'read',
  'keys ls': 'read',
  'writs trusted': 'read',
  diff: 'read',
  promotions: 'read',
  'replay-gate': 'read',
  // A spec file is read back without a store; `workflow[@version]` reads the stored version.
  explain: (_o, args) => (isSpecFileArg(args[0] ?? '') ? 'none' : 'read'),
  // A draft is published (as DRAFT) only when confirmed; a first confirmed draft may create the store.
  // (keel draft without --yes on no terminal publishes nothing, so it opens no store).
  draft: (o) => (o.yes === true || process.stdin.isTTY === true ? 'create' : 'none'),
};

/** `keel explain` and the like: an argument naming a YAML or JSON file, rather than `workflow[@version]`. */
export function isSpecFileArg(arg: string): boolean {
  return /\.(ya?ml|json|m?ts)$/i.test(arg) || arg.includes('/') || arg.includes('\\') || arg === '-';
}

/** The command as a person types it after `keel`: `runs ls`, `approve`, `writs trust`. */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** What the command may do to the store (see the table above). */
export function storeAccessFor(cmd: Command): CommandAccess {
  const a = ACCESS[commandPath(cmd)] ?? 'write';
  return typeof a === 'function' ? a(cmd.opts(), cmd.args) : a;
}

/** The commands of each access, for the docs and the tests. */
export function commandsWithAccess(access: CommandAccess): string[] {
  return Object.entries(ACCESS)
    .filter(([, a]) => typeof a !== 'function' && a === access)
    .map(([name]) => name);
}
