/**
 * The trigger condition language: source text -> a plain-data AST.
 *
 *   expr := or ; or := and ('or' and)* ; and := not ('and' not)* ; not := 'not' not | cmp
 *   cmp := operand (op operand)? | '(' expr ')' ; op := == != < <= > >=
 *   operand := path | number | "string" | 'string' | true | false | null
 *
 * Owns tokenising and parsing. Never evaluates, never uses eval/Function; by default a path must
 * name an event field (payload..., subject, type, source, tenant, id, time; `event.` prefix
 * allowed); a `ConditionScope` names other roots (policy `when` clauses read args, tool, ...).
 */

import { ErrorCode, KeelError } from '../errors.ts';
import { isEventScalarField } from './event-like.ts';
import { isWellFormed } from './is-well-formed.ts';

export type CompareOp = '==' | '!=' | '<' | '<=' | '>' | '>=';
export type Literal = string | number | boolean | null;
/** A path is relative to the event, without the optional `event.` prefix: `['payload', 'amount']`. */
export type Operand =
  | { readonly kind: 'path'; readonly path: readonly string[] }
  | { readonly kind: 'literal'; readonly value: Literal };
export type Condition =
  | { readonly kind: 'or' | 'and'; readonly items: readonly Condition[] }
  | { readonly kind: 'not'; readonly item: Condition }
  | { readonly kind: 'compare'; readonly op: CompareOp; readonly left: Operand; readonly right: Operand }
  | { readonly kind: 'truthy'; readonly operand: Operand };

type Token =
  | { t: 'ident'; v: string; at: number }
  | { t: 'num'; v: number; at: number }
  | { t: 'str'; v: string; at: number }
  | { t: 'op'; v: CompareOp; at: number }
  | { t: '(' | ')' | '.' | 'end'; at: number };

const KEYWORDS = new Set(['and', 'or', 'not', 'true', 'false', 'null']);
const OPS: readonly CompareOp[] = ['==', '!=', '<=', '>=', '<', '>'];
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;
const ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  b: '\b',
  f: '\f',
  '/': '/',
  '\\': '\\',
  '"': '"',
  "'": "'",
};
const MAX_DEPTH = 64;

/** Thrown for any syntax error: `position` is the 0-based character index in the source. */
function syntaxError(position: number, message: string): KeelError {
  return new KeelError(
    ErrorCode.specInvalid,
    `invalid condition: ${message} (at character ${position + 1})`,
    {
      position,
      message,
    },
  );
}

function readString(src: string, start: number): { v: string; end: number } {
  const quote = src[start];
  let out = '';
  let i = start + 1;
  while (i < src.length && src[i] !== quote) {
    if (src[i] !== '\\') {
      out += src[i];
      i++;
      continue;
    }
    const e = src[i + 1] ?? '';
    if (e in ESCAPES) {
      out += ESCAPES[e];
      i += 2;
    } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(src.slice(i + 2, i + 6))) {
      out += String.fromCharCode(Number.parseInt(src.slice(i + 2, i + 6), 16));
      i += 6;
    } else {
      throw syntaxError(i, `unknown escape "\\${e}" in string`);
    }
  }
  if (i >= src.length) throw syntaxError(start, 'string is not closed');
  if (!isWellFormed(out)) throw syntaxError(start, 'string contains a lone surrogate');
  return { v: out, end: i + 1 };
}

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '(' || c === ')' || c === '.') {
      out.push({ t: c, at: i++ });
    } else if (c === '"' || c === "'") {
      const s = readString(src, i);
      out.push({ t: 'str', v: s.v, at: i });
      i = s.end;
    } else if (/[-0-9]/.test(c)) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(src);
      if (!m) throw syntaxError(i, `unexpected "${c}"`);
      const v = Number(m[0]);
      if (!Number.isFinite(v)) throw syntaxError(i, `number ${m[0]} is out of range`);
      out.push({ t: 'num', v: Object.is(v, -0) ? 0 : v, at: i });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      IDENT.lastIndex = i;
      const v = IDENT.exec(src)![0];
      out.push({ t: 'ident', v, at: i });
      i += v.length;
    } else {
      const op = OPS.find((o) => src.startsWith(o, i));
      if (!op) throw syntaxError(i, c === '=' ? 'use "==" to compare' : `unexpected "${c}"`);
      out.push({ t: 'op', v: op, at: i });
      i += op.length;
    }
  }
  out.push({ t: 'end', at: src.length });
  return out;
}

function describe(tok: Token): string {
  if (tok.t === 'end') return 'the end of the condition';
  if (tok.t === 'ident' || tok.t === 'op') return `"${tok.v}"`;
  if (tok.t === 'num') return `number ${tok.v}`;
  if (tok.t === 'str') return `string ${JSON.stringify(tok.v)}`;
  return `"${tok.t}"`;
}

/**
 * What a condition's paths may name. The default is the event (trigger conditions); other
 * documents (policy `when` clauses) pass their own roots. `check` returns a problem or undefined;
 * `normalize` may rewrite a path first (the event scope drops an `event.` prefix).
 */
export interface ConditionScope {
  readonly normalize?: (segs: string[]) => string[];
  readonly check: (segs: readonly string[]) => string | undefined;
}

const EVENT_SCOPE: ConditionScope = {
  normalize: (segs) => (segs[0] === 'event' && segs.length > 1 ? segs.slice(1) : segs),
  check: eventPathProblem,
};

class Parser {
  private i = 0;
  constructor(
    private readonly toks: Token[],
    private readonly scope: ConditionScope,
  ) {}

  private peek(): Token {
    return this.toks[this.i]!;
  }
  private isWord(w: string): boolean {
    const t = this.peek();
    return t.t === 'ident' && t.v === w;
  }

  parse(): Condition {
    const c = this.or(0);
    const t = this.peek();
    if (t.t !== 'end') throw syntaxError(t.at, `expected "and", "or" or the end, got ${describe(t)}`);
    return c;
  }

  private or(depth: number): Condition {
    const items = [this.and(depth)];
    while (this.isWord('or')) {
      this.i++;
      items.push(this.and(depth));
    }
    return items.length === 1 ? items[0]! : { kind: 'or', items };
  }

  private and(depth: number): Condition {
    const items = [this.not(depth)];
    while (this.isWord('and')) {
      this.i++;
      items.push(this.not(depth));
    }
    return items.length === 1 ? items[0]! : { kind: 'and', items };
  }

  private not(depth: number): Condition {
    if (depth > MAX_DEPTH) throw syntaxError(this.peek().at, `nested more than ${MAX_DEPTH} levels deep`);
    if (!this.isWord('not')) return this.cmp(depth);
    this.i++;
    return { kind: 'not', item: this.not(depth + 1) };
  }

  private cmp(depth: number): Condition {
    const open = this.peek();
    if (open.t === '(') {
      this.i++;
      const inner = this.or(depth + 1);
      const close = this.peek();
      if (close.t !== ')')
        throw syntaxError(
          close.at,
          `expected ")" to close "(" at character ${open.at + 1}, got ${describe(close)}`,
        );
      this.i++;
      return inner;
    }
    const left = this.operand();
    const op = this.peek();
    if (op.t !== 'op') return { kind: 'truthy', operand: left };
    this.i++;
    return { kind: 'compare', op: op.v, left, right: this.operand() };
  }

  private operand(): Operand {
    const t = this.peek();
    this.i++;
    if (t.t === 'num' || t.t === 'str') return { kind: 'literal', value: t.v };
    if (t.t === 'ident' && t.v === 'true') return { kind: 'literal', value: true };
    if (t.t === 'ident' && t.v === 'false') return { kind: 'literal', value: false };
    if (t.t === 'ident' && t.v === 'null') return { kind: 'literal', value: null };
    if (t.t === 'ident' && !KEYWORDS.has(t.v)) return { kind: 'path', path: this.path(t.v, t.at) };
    throw syntaxError(t.at, `expected a field, number, string, true, false or null, got ${describe(t)}`);
  }

  private path(first: string, at: number): string[] {
    const segs = [first];
    while (this.peek().t === '.') {
      this.i++;
      const t = this.peek();
      if (t.t !== 'ident') throw syntaxError(t.at, `expected a field name after ".", got ${describe(t)}`);
      segs.push(t.v);
      this.i++;
    }
    const out = this.scope.normalize ? this.scope.normalize(segs) : segs;
    const problem = this.scope.check(out);
    if (problem !== undefined) throw syntaxError(at, problem);
    return out;
  }
}

export function eventPathProblem(segs: readonly string[]): string | undefined {
  const [root, ...rest] = segs;
  if (root === 'payload') return undefined;
  const shown = segs.join('.');
  if (!root || !isEventScalarField(root)) {
    return `unknown field "${shown}": fields are payload.<name>, subject, type, source, tenant, id or time`;
  }
  if (rest.length > 0) return `"${root}" is a string and has no field "${rest.join('.')}"`;
  return undefined;
}

/** Parses condition source text; throws `spec_invalid` with `{position, message}` on a syntax error. */
export function parseCondition(src: string): Condition {
  return new Parser(tokenize(src), EVENT_SCOPE).parse();
}

/** Parses a condition whose paths name the roots of `scope` instead of event fields. */
export function parseConditionIn(src: string, scope: ConditionScope): Condition {
  return new Parser(tokenize(src), scope).parse();
}
