/**
 * Spec problems: what is wrong, where, in words a reviewer of the file understands.
 *
 * Owns the problem shape, its one-line format, field-path spelling (`steps[1].args.amount_usd`) and
 * the single `spec_invalid` error that carries every problem. Never decides what is a problem.
 */
import { ErrorCode, KeelError } from '../errors.ts';

export interface SpecProblem {
  file: string;
  line?: number;
  column?: number;
  field: string;
  message: string;
}

/** A path into a document: keys and array indexes. */
export type FieldPath = readonly (string | number)[];

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** `['steps', 1, 'args', 'a b']` -> `steps[1].args["a b"]`. */
export function formatFieldPath(path: FieldPath): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (IDENT.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** `refund.yaml:12:5: steps[1].tool: unknown tool "issue_refnd"`. */
export function formatProblem(p: SpecProblem): string {
  let where = p.file;
  if (p.line !== undefined) where += `:${p.line}`;
  if (p.line !== undefined && p.column !== undefined) where += `:${p.column}`;
  return p.field === '' ? `${where}: ${p.message}` : `${where}: ${p.field}: ${p.message}`;
}

/**
 * The error every spec entry point throws: the first problem in the message, the kept ones in
 * `details.problems` (and how many more were found, `details.omitted`), the first one's field in
 * `details.field`.
 */
export function specInvalidError(problems: readonly SpecProblem[], omitted = 0): KeelError {
  const first = problems[0];
  const head = first ? formatProblem(first) : 'invalid spec';
  const others = problems.length - 1 + omitted;
  const more = others > 0 ? ` (+${others} more)` : '';
  return new KeelError(ErrorCode.specInvalid, `${head}${more}`, {
    ...(first ? { field: first.field === '' ? '(spec)' : first.field } : {}),
    problems: [...problems],
    ...(omitted > 0 ? { omitted } : {}),
  });
}

/** A short, quoted rendering of a value for "got ..." in messages. */
export function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}...` : v);
  if (Object.is(v, -0)) return '-0';
  return String(v);
}
