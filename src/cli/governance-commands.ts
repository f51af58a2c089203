/**
 * The governance commands: `keel writs keygen | issue | attenuate | inspect` and `keel policy check`.
 *
 * They work on files, not the store: a writ file is `{"chain": [root, ..., writ]}` (a writ is
 * never presented without its chain), a request file is the body fields the issuer chooses, and
 * keys are Ed25519 PEM files. A private key is read from its file to sign and never written
 * anywhere else: not to the store, not to a ledger, not to output. Errors name the field.
 */
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import pc from 'picocolors';
import { ErrorCode, KeelError } from '../core/errors.ts';
import type { ChildRequest, TrustedKey, WritBody, WritViolation } from '../core/writs/index.ts';
import type { GlobalOptions, ReportError } from './context.ts';
import { readText } from './input.ts';
import { line, printJson } from './output.ts';

/** What the writ commands use: the writ core and the files, loaded when one runs (never by `keel --help`). */
async function loadWrits() {
  return { ...(await import('../core/writs/index.ts')), ...(await import('./writ-files.ts')) };
}
type Writs = Awaited<ReturnType<typeof loadWrits>>;

function refused(what: string, violations: readonly WritViolation[]): KeelError {
  const v = violations[0]!;
  const more = violations.length > 1 ? ` (+${violations.length - 1} more)` : '';
  return new KeelError(
    ErrorCode.writRefused,
    `${what}: ${v.code}: ${v.field ? `${v.field}: ` : ''}${v.message}${more}`,
    {
      code: v.code,
      violations: [...violations],
      // Listed one a line by the CLI error printer.
      problems: violations.map((x) => ({ field: x.field, message: `${x.code}: ${x.message}` })),
    },
  );
}

function writeOut(path: string | undefined, value: unknown, json: boolean): void {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  if (path) writeFileSync(path, text);
  if (!path || json) process.stdout.write(text);
}

function tenantOf(g: GlobalOptions): string {
  const t = g.tenant ?? process.env.KEEL_TENANT;
  if (!t || t.trim() === '')
    throw new KeelError(ErrorCode.usage, '--tenant: required (or set KEEL_TENANT)', { field: 'tenant' });
  if (!/^[A-Za-z0-9_.-]{1,100}$/.test(t))
    throw new KeelError(
      ErrorCode.usage,
      `--tenant: expected letters, digits, _ . -, got ${JSON.stringify(t)}`,
      { field: 'tenant' },
    );
  return t;
}

function summary(w: WritBody): string {
  const b = w.budget;
  return `${w.id} (tenant ${w.tenant}, subject ${w.subject}, depth ${w.depth}): scopes ${w.scopes.join(', ') || 'none'}; budget ${b.cents} cents, ${b.steps} steps, ${b.calls} calls; ${w.window.notBefore} .. ${w.window.notAfter}; effect <= ${w.effectCeiling.max}${w.effectCeiling.destructive ? ' incl. destructive' : ''}`;
}

export function registerGovernanceCommands(program: Command, report: ReportError): void {
  // A body may be async (it loads what it needs when it runs); anything it returns is ignored.
  const run = async (cmd: Command, body: (g: GlobalOptions, json: boolean, ws: Writs) => unknown) => {
    const g = cmd.optsWithGlobals() as GlobalOptions;
    try {
      await body(g, g.json === true, await loadWrits());
    } catch (e) {
      report(e, g.json === true);
    }
  };
  const writs = program
    .command('writs')
    .description('signed capability tokens (writs): keys, issue, attenuate, inspect');

  writs
    .command('keygen')
    .description(
      "write a tenant's Ed25519 root key pair as <dir>/<tenant>.key.pem (private, mode 600) and .pub.pem",
    )
    .requiredOption('--out <dir>', 'directory for the key files (created if missing)')
    .action((o: { out: string }, cmd: Command) =>
      run(cmd, (g, json, ws) => {
        const tenant = tenantOf(g);
        const priv = join(o.out, `${tenant}.key.pem`);
        const pub = join(o.out, `${tenant}.pub.pem`);
        for (const f of [priv, pub])
          if (existsSync(f))
            throw new KeelError(ErrorCode.usage, `--out: ${f} already exists; keys are never overwritten`, {
              path: f,
            });
        const { privateKey, publicKey } = generateKeyPairSync('ed25519');
        mkdirSync(o.out, { recursive: true });
        writeFileSync(priv, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
        writeFileSync(pub, publicKey.export({ type: 'spki', format: 'pem' }));
        const out = { tenant, keyId: ws.keyIdOf(publicKey), privateKey: priv, publicKey: pub };
        if (json) printJson(out);
        else line(`${pc.green('wrote')} ${priv} and ${pub}; key id ${out.keyId}`);
      }),
    );

  writs
    .command('issue')
    .description(
      'sign a root writ from a request file (id, tenant, subject, scopes, budget, window, effectCeiling, delegation)',
    )
    .argument('<request.json>')
    .requiredOption('--key <private.pem>', "the tenant's private key")
    .option('--out <writ.json>', 'write the writ file here (default: print it)')
    .action((file: string, o: { key: string; out?: string }, cmd: Command) =>
      run(cmd, (_g, json, ws) => {
        const key = ws.readKey(o.key, 'private');
        const req = ws.readWritJson(file, 'writ request');
        if (typeof req !== 'object' || req === null || Array.isArray(req))
          throw new KeelError(ErrorCode.writInvalid, `writ request ${file}: expected a JSON object`, {
            path: file,
          });
        const body = { v: 1, parent: null, depth: 0, ...req, issuer: ws.keyIdOf(createPublicKey(key)) };
        const p = ws.writBodyProblems(body)[0];
        if (p)
          throw new KeelError(ErrorCode.writInvalid, `writ request ${file}: ${p.field}: ${p.message}`, {
            path: file,
            field: p.field,
          });
        writeOut(o.out, { chain: [ws.signWrit(body as WritBody, key)] }, json);
      }),
    );

  writs
    .command('attenuate')
    .description(
      'derive a child writ from a writ file and a request file; refused with a code per widened dimension',
    )
    .argument('<parent-writ.json>')
    .argument(
      '<request.json>',
      'id, subject, and any of scopes, budget, window, effectCeiling, delegation to narrow',
    )
    .requiredOption('--key <private.pem>', 'the key that signs the child')
    .option('--out <writ.json>', 'write the child writ file (the full chain) here (default: print it)')
    .action((parentFile: string, file: string, o: { key: string; out?: string }, cmd: Command) =>
      run(cmd, (_g, json, ws) => {
        const chain = ws.readChain(parentFile);
        const key = ws.readKey(o.key, 'private');
        const req = ws.readWritJson(file, 'writ request') as ChildRequest;
        if (typeof req !== 'object' || req === null || Array.isArray(req))
          throw new KeelError(ErrorCode.writInvalid, `writ request ${file}: expected a JSON object`, {
            path: file,
          });
        const parent = chain[chain.length - 1]!.body;
        // The CLI has no ledger to compute usage from: the parent's whole budget is its remaining budget.
        const r = ws.attenuate(parent, { ...req, issuer: ws.keyIdOf(createPublicKey(key)) }, parent.budget);
        if (!r.ok) throw refused(`cannot attenuate writ ${parent.id}`, r.violations);
        writeOut(o.out, { chain: [...chain, ws.signWrit(r.body, key)] }, json);
      }),
    );

  writs
    .command('inspect')
    .description("show a writ file; with --trust, verify its chain to the tenant's root key")
    .argument('<writ.json>')
    .option(
      '--trust <public.pem...>',
      'public keys trusted for the writ tenant (--tenant, default: the root writ tenant)',
    )
    .action((file: string, o: { trust?: string[] }, cmd: Command) =>
      run(cmd, (g, json, ws) => {
        const chain = ws.readChain(file);
        const leaf = chain[chain.length - 1]!.body;
        const tenant = g.tenant ?? process.env.KEEL_TENANT ?? chain[0]!.body.tenant;
        const trusted: TrustedKey[] = (o.trust ?? []).map((path) => {
          const publicKey = ws.readKey(path, 'public');
          return { keyId: ws.keyIdOf(publicKey), tenant, publicKey };
        });
        const verified = trusted.length > 0 ? ws.verifyWritChain(chain, trusted) : undefined;
        const out = {
          hash: ws.writHash(leaf),
          verified: verified?.ok ?? null,
          writ: leaf,
          chain: chain.map((w) => ({
            id: w.body.id,
            hash: ws.writHash(w),
            issuer: w.body.issuer,
            depth: w.body.depth,
          })),
        };
        // A failed command prints nothing on stdout: the error names the link and the code.
        if (verified && !verified.ok)
          throw refused(`writ ${file} does not verify (link ${verified.index})`, verified.violations);
        if (json) printJson(out);
        else {
          for (const [i, w] of chain.entries())
            line(`${i === chain.length - 1 ? '*' : ' '} ${summary(w.body)}`);
          line(`  hash ${out.hash}`);
          if (!verified) line(pc.yellow('  not verified: pass --trust <public.pem> to verify the chain'));
          else if (verified.ok)
            line(`  ${pc.green('verified')}: chain of ${chain.length} to a trusted root of tenant ${tenant}`);
        }
      }),
    );

  program
    .command('policy')
    .description('policy documents')
    .command('check')
    .description('validate a policy file (YAML or JSON) and print its hash')
    .argument('<policy.yaml>')
    .action((file: string, _o: unknown, cmd: Command) =>
      run(cmd, async (_g, json) => {
        const { parsePolicy, policyDocument } = await import('../core/policy/index.ts');
        const p = parsePolicy(readText(file, 'policy'), file);
        if (json)
          printJson({
            valid: true,
            hash: p.hash,
            default: p.default,
            rules: p.rules.length,
            document: policyDocument(p),
          });
        else
          line(
            `${pc.green('valid')} ${file}: ${p.rules.length} rule${p.rules.length === 1 ? '' : 's'}, default ${p.default}, hash ${p.hash}`,
          );
      }),
    );
}
