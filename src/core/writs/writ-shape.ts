/**
 * The shape of a writ body and of a signed writ, checked field by field.
 *
 * Owns "is this value a well-formed writ" (types, ranges, ISO instants, tool patterns), so that
 * everything downstream (signature, subset, checks) works on trusted shapes. Returns problems as
 * values naming the field; never throws, never checks signatures or subsets.
 */
import { isDigest } from '../canonical/index.ts';
import { INSTANT_EXAMPLE, instantMessage, parseInstant } from '../instant.ts';
import { TOOL_EFFECTS } from '../tools/tool-descriptor.ts';
import { isToolPattern } from '../tools/tool-pattern.ts';
import type { SignedWrit, WritBody } from './writ.ts';

export interface ShapeProblem {
  readonly field: string;
  readonly message: string;
}

const NAME = /^[^\s\p{Cc}]{1,200}$/u;
const BODY_KEYS = [
  'v',
  'id',
  'tenant',
  'subject',
  'issuer',
  'parent',
  'scopes',
  'budget',
  'window',
  'effectCeiling',
  'delegation',
  'depth',
];

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

export function writBodyProblems(v: unknown): ShapeProblem[] {
  const out: ShapeProblem[] = [];
  const bad = (field: string, message: string) => out.push({ field, message });
  if (!isObj(v)) return [{ field: '', message: 'expected a writ body (a mapping)' }];
  for (const k of Object.keys(v)) if (!BODY_KEYS.includes(k)) bad(k, 'unknown field');
  if (v.v !== 1) bad('v', 'expected 1');
  for (const f of ['id', 'tenant', 'subject', 'issuer'])
    if (typeof v[f] !== 'string' || !NAME.test(v[f] as string))
      bad(f, 'expected a non-empty string without spaces');
  if (v.parent !== null && !isDigest(v.parent)) bad('parent', 'expected null or a sha256:<hex> writ hash');
  if (!Array.isArray(v.scopes)) bad('scopes', 'expected a list of tool names or prefix patterns');
  else
    v.scopes.forEach((s, i) => {
      if (!isToolPattern(s))
        bad(
          `scopes[${i}]`,
          `expected a tool name or prefix pattern like "helpdesk.*", got ${JSON.stringify(s)}`,
        );
    });
  if (!isObj(v.budget)) bad('budget', 'expected {cents, steps, calls}');
  else
    for (const f of ['cents', 'steps', 'calls'])
      if (!isCount(v.budget[f])) bad(`budget.${f}`, 'expected an integer >= 0');
  if (!isObj(v.window)) bad('window', 'expected {notBefore, notAfter}');
  else {
    const nb = typeof v.window.notBefore === 'string' ? parseInstant(v.window.notBefore) : undefined;
    const na = typeof v.window.notAfter === 'string' ? parseInstant(v.window.notAfter) : undefined;
    for (const [k, ms] of [
      ['notBefore', nb],
      ['notAfter', na],
    ] as const)
      if (ms === undefined) {
        const given = v.window[k];
        const why = typeof given === 'string' ? instantMessage(`window.${k}`, given) : undefined;
        bad(
          `window.${k}`,
          why?.slice(`window.${k}: `.length) ?? `expected an RFC 3339 instant like ${INSTANT_EXAMPLE}`,
        );
      }
    if (nb !== undefined && na !== undefined && nb >= na) bad('window', 'notBefore must be before notAfter');
  }
  if (!isObj(v.effectCeiling)) bad('effectCeiling', 'expected {max, destructive}');
  else {
    if (!(TOOL_EFFECTS as readonly unknown[]).includes(v.effectCeiling.max))
      bad('effectCeiling.max', `expected one of ${TOOL_EFFECTS.join(', ')}`);
    if (typeof v.effectCeiling.destructive !== 'boolean')
      bad('effectCeiling.destructive', 'expected true or false');
  }
  if (!isObj(v.delegation)) bad('delegation', 'expected {maxDepth, maySubdivide}');
  else {
    if (!isCount(v.delegation.maxDepth)) bad('delegation.maxDepth', 'expected an integer >= 0');
    if (typeof v.delegation.maySubdivide !== 'boolean')
      bad('delegation.maySubdivide', 'expected true or false');
  }
  if (!isCount(v.depth)) bad('depth', 'expected an integer >= 0');
  else if (v.parent === null && v.depth !== 0) bad('depth', 'a root writ (parent null) has depth 0');
  else if (v.parent !== null && v.depth === 0) bad('depth', 'a child writ has depth of at least 1');
  return out;
}

export function isWritBody(v: unknown): v is WritBody {
  return writBodyProblems(v).length === 0;
}

export function signedWritProblems(v: unknown): ShapeProblem[] {
  if (!isObj(v)) return [{ field: '', message: 'expected a signed writ {body, signature}' }];
  const out = writBodyProblems(v.body).map((p) => ({
    field: p.field ? `body.${p.field}` : 'body',
    message: p.message,
  }));
  if (typeof v.signature !== 'string' || !/^[A-Za-z0-9_-]{86}$/.test(v.signature))
    out.push({ field: 'signature', message: 'expected a base64url Ed25519 signature (86 characters)' });
  for (const k of Object.keys(v))
    if (k !== 'body' && k !== 'signature') out.push({ field: k, message: 'unknown field' });
  return out;
}

export function isSignedWrit(v: unknown): v is SignedWrit {
  return signedWritProblems(v).length === 0;
}
