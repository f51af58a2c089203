/**
 * What `keel hooks` does when it runs (hooks-commands.ts registers it and loads this only then):
 * `keel hooks ls` lists the hooks file's hooks (path, tenant, scheme, header, secret variable and
 * whether it is set, limits); `keel hooks test <hook> <sample>` verifies a sample delivery (its raw
 * body, and with --headers the headers it came with) as `keel serve` would, and prints the
 * canonical event it maps to. Neither opens a store or starts anything; neither prints a secret.
 */
import { readFileSync } from 'node:fs';
import pc from 'picocolors';
import { ErrorCode, KeelError } from '../core/errors.ts';
import { mapDelivery, readDeliveryBody, verifyDelivery } from '../core/hooks/index.ts';
import { instantBound, parseInstant } from '../core/instant.ts';
import { parseYamlWith } from '../core/spec/index.ts';
import { secretMask } from '../core/tools/index.ts';
import type { GlobalOptions, ReportError } from './context.ts';
import { EXIT } from './exit-codes.ts';
import { hooksFileOf, readHooksFile, secretIsSet } from './hooks-file.ts';
import { line, printJson } from './output.ts';

function hooksOrRefuse(g: GlobalOptions) {
  const file = hooksFileOf(g.hooks);
  if (file === undefined)
    throw new KeelError(
      ErrorCode.usage,
      '--hooks: no hooks file: name one with --hooks or KEEL_HOOKS, or write keel.hooks.yaml here (docs/hooks.md)',
      { field: 'hooks' },
    );
  return { file, hooks: readHooksFile(file) };
}

/** A headers file: a mapping of header names to texts (YAML or JSON), names lower-cased. */
function readHeaders(file: string): Map<string, string> {
  const value = parseYamlWith(readFileSync(file, 'utf8'), file, (c, v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      c.report([], 'expected a mapping of header names to values');
      return undefined;
    }
    for (const [k, x] of Object.entries(v)) if (typeof x !== 'string') c.report([k], 'expected a text');
    return v as Record<string, string>;
  });
  return new Map(Object.entries(value).map(([k, v]) => [k.toLowerCase(), v]));
}

/** `keel hooks ls`. */
export function hooksLs(g: GlobalOptions, report: ReportError): void {
  try {
    const { file, hooks: list } = hooksOrRefuse(g);
    const rows = list.map((h) => ({
      name: h.name,
      path: `/hooks/${h.name}`,
      tenant: h.tenant,
      scheme: h.auth.scheme,
      header: h.auth.header,
      secret: h.auth.secret,
      secretSet: secretIsSet(h),
      ...(h.auth.scheme === 'hmac-sha256-timestamped' ? { toleranceSeconds: h.auth.toleranceSeconds } : {}),
      maxBodyBytes: h.maxBodyBytes,
      rateLimit: h.rateLimit,
      schema: h.body !== undefined,
      ...(h.description ? { description: h.description } : {}),
    }));
    if (g.json === true) {
      printJson({ file, hooks: rows });
      return;
    }
    for (const r of rows)
      line(
        `${r.path}  ${r.tenant}  ${r.scheme} ${r.header}  secret ${r.secret} ${r.secretSet ? pc.green('set') : pc.red('not set')}  ${pc.dim(`≤${r.maxBodyBytes} B, ${r.rateLimit.perSecond}/s burst ${r.rateLimit.burst}`)}`,
      );
    if (rows.length === 0) line(pc.dim(`${file}: no hooks`));
  } catch (e) {
    report(e, g.json === true);
  }
}

/** `keel hooks test <hook> <sample>`. */
export function hooksTest(
  name: string,
  sample: string,
  o: { headers?: string; at?: string },
  g: GlobalOptions,
  report: ReportError,
): void {
  const json = g.json === true;
  try {
    const { hooks: list } = hooksOrRefuse(g);
    const hook = list.find((h) => h.name === name);
    if (!hook)
      throw new KeelError(
        ErrorCode.notFound,
        `hook ${name}: not in the hooks file (it has ${list.map((h) => h.name).join(', ') || 'none'})`,
        {
          field: 'hook',
        },
      );
    if (o.at !== undefined && instantBound(o.at) === undefined)
      throw new KeelError(ErrorCode.usage, `--at: expected an RFC 3339 time, got ${JSON.stringify(o.at)}`, {
        field: 'at',
      });
    const nowMs = o.at === undefined ? Date.now() : parseInstant(o.at)!;
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(sample);
    } catch (e) {
      throw new KeelError(ErrorCode.usage, `${sample}: cannot read it: ${(e as Error).message}`, {
        field: 'sample',
      });
    }
    const headers = o.headers === undefined ? new Map<string, string>() : readHeaders(o.headers);
    const signature = headers.get(hook.auth.header.toLowerCase());
    const secret = process.env[hook.auth.secret];
    const mask = secretMask(new Map(secret ? [[hook.auth.secret, secret]] : []));
    let verified: 'verified' | 'unsigned' | 'refused' = 'unsigned';
    let refusal: { reason: string; message: string } | undefined;
    if (signature !== undefined) {
      if (!secret)
        throw new KeelError(
          ErrorCode.usage,
          `hook ${name}: its secret ${hook.auth.secret} is not set, so the sample's signature cannot be checked`,
          {
            field: 'auth.secret',
          },
        );
      const r = verifyDelivery(hook.auth, secret, bytes, signature, Math.floor(nowMs / 1000));
      verified = r.ok ? 'verified' : 'refused';
      if (!r.ok) refusal = { reason: r.reason, message: r.message };
    }
    const body = readDeliveryBody(bytes, headers.get('content-type'));
    const mapped = body.ok ? mapDelivery(hook, body.value, headers) : body;
    const out = {
      hook: name,
      tenant: hook.tenant,
      signature: verified,
      ...(refusal ? { refusal } : {}),
      ...(mapped.ok
        ? { event: mask.value(mapped.event) }
        : {
            mapping: { reason: mapped.reason, field: mapped.field, message: mask.text(mapped.message) },
          }),
    };
    if (json) printJson(out);
    else {
      line(
        verified === 'verified'
          ? pc.green(`signature verified (${hook.auth.scheme}, ${hook.auth.header})`)
          : verified === 'unsigned'
            ? pc.yellow(`unsigned: no ${hook.auth.header} header given (--headers); not verified`)
            : pc.red(`signature refused: ${refusal!.reason}: ${mask.text(refusal!.message)}`),
      );
      if (mapped.ok) {
        line(`event for tenant ${hook.tenant}:`);
        line(JSON.stringify(mask.value(mapped.event), null, 2));
      } else line(pc.red(`not mapped: ${mapped.reason}: ${mask.text(mapped.message)}`));
    }
    process.exitCode = verified === 'refused' ? EXIT.verificationFailed : mapped.ok ? EXIT.ok : EXIT.usage;
  } catch (e) {
    report(e, json);
  }
}
