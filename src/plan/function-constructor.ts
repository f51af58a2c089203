/**
 * The determinism check's rules against reaching the Function constructor, which runs code from a
 * string the check cannot see. Naming `Function` (or `eval`) is refused in host-apis.ts; this owns
 * every other road to it, failing closed where the checker cannot prove a road is not one:
 *
 * - reading a member named `constructor` (dotted, a literal or `const` key, destructured), or
 *   asking `Reflect.get` / `Object.getOwnPropertyDescriptor` for it;
 * - reading a member by a key the checker cannot name (`f['constr' + 'uctor']`, `o[k]` with `k` a
 *   string) where what it reads could be used as a function: from a function or from `any`, into a
 *   call, or typed as a function or `any`. Keys of a literal (union) type, numbers, symbols and
 *   plain data reads (`prices[sku]` giving a number) are fine;
 * - the same through `Reflect.get` / `Object.getOwnPropertyDescriptor`, and
 *   `Object.getOwnPropertyDescriptors`, which hands out non-enumerable members such as `constructor`;
 * - a cast, or a type guard, that makes a value a function it was not (`v as unknown as Fn`), or a
 *   cast of `any`/`unknown` to a type parameter: the checker would lose track of which function it is.
 *
 * Never walks the tree (check-references.ts calls it at each node) and never decides about
 * other APIs. The QuickJS sandbox contains the constructor too; this is the checker's promise.
 */
import ts from 'typescript';
import type { Rule } from './host-apis.ts';
import type { RuleContext } from './rule-context.ts';

const REACHES =
  'it reaches the Function constructor (a function’s `constructor`), which runs code from a string the check cannot see';

const CONSTRUCTOR_RULE: Rule = {
  what: '.constructor',
  why: `${REACHES}; test a value with instanceof or typeof instead`,
};

/** Reflective reads whose second argument names the member read. */
const REFLECTIVE_READS = new Set([
  'Reflect.get',
  'ObjectConstructor.getOwnPropertyDescriptor',
  'Reflect.getOwnPropertyDescriptor',
]);

/** One node of the walk: judged if it is a member read, a binding, a reflective call, a cast or a guard. */
export function checkFunctionConstructor(ctx: RuleContext, node: ts.Node): void {
  if (ts.isPropertyAccessExpression(node)) {
    if (
      node.name.text === 'constructor' &&
      !ctx.reportedWithin(node.name) &&
      !isOwnData(ctx, node, node.expression)
    )
      ctx.report(node.name, CONSTRUCTOR_RULE);
  } else if (ts.isElementAccessExpression(node)) checkComputedRead(ctx, node);
  else if (ts.isBindingElement(node)) checkBinding(ctx, node);
  else if (ts.isCallExpression(node)) checkReflectiveCall(ctx, node);
  else if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) checkCast(ctx, node);
  if (ts.isExpression(node)) checkAnyAsFunction(ctx, node);
  // A guard's predicate is a type, which the walk does not enter: judged at its function.
  if (ts.isFunctionLike(node) && node.type && ts.isTypePredicateNode(node.type)) checkGuard(ctx, node.type);
}

/** `f['constructor']`, or `o[k]` whose key may be `constructor` and whose value may be used as a function. */
function checkComputedRead(ctx: RuleContext, node: ts.ElementAccessExpression): void {
  if (ctx.reportedWithin(node)) return;
  const key = node.argumentExpression;
  const names = ctx.keyNames(key, true);
  if (names) {
    if (names.includes('constructor') && !isOwnData(ctx, node, node.expression))
      ctx.report(key, CONSTRUCTOR_RULE);
    return;
  }
  if (!mayNameConstructor(ctx, key) || isAssignmentTarget(node)) return;
  const receiver = ctx.checker.getTypeAtLocation(node.expression);
  const read = ctx.checker.getTypeAtLocation(node);
  if (ctx.isUnknown(receiver) || isCallable(ctx, receiver) || isAnyOrCallable(ctx, read) || isCallee(node))
    ctx.report(key, {
      what: `${short(ctx, node.expression)}[<computed>]`,
      why: `a key the checker cannot name could be "constructor", and ${REACHES}; name the member, type the key as a union of literal keys, or keep functions in a Map`,
    });
}

/** `const { constructor: c } = f`. */
function checkBinding(ctx: RuleContext, el: ts.BindingElement): void {
  if (!ts.isObjectBindingPattern(el.parent) || el.dotDotDotToken) return;
  const names = ctx.keyNames(el.propertyName ?? el.name, false);
  if (names?.includes('constructor') && !isOwnData(ctx, el, el.parent))
    ctx.report(el.propertyName ?? el.name, CONSTRUCTOR_RULE, 'destructured');
}

/** `Reflect.get(f, 'constructor')`, `Object.getOwnPropertyDescriptor(o, k)`, `Object.getOwnPropertyDescriptors(p)`. */
function checkReflectiveCall(ctx: RuleContext, node: ts.CallExpression): void {
  if (ctx.reportedWithin(node.expression)) return;
  const name = calleeName(ctx, node);
  if (name === 'ObjectConstructor.getOwnPropertyDescriptors') {
    ctx.report(node.expression, {
      what: 'Object.getOwnPropertyDescriptors',
      why: `it hands out every member, the non-enumerable \`constructor\` included, and ${REACHES}; use Object.entries`,
    });
    return;
  }
  if (!name || !REFLECTIVE_READS.has(name)) return;
  const key = node.arguments[1];
  if (!key || ts.isSpreadElement(key)) {
    ctx.report(node.expression, {
      what: `${short(ctx, node.expression)}()`,
      why: `its key cannot be read, and ${REACHES}`,
    });
    return;
  }
  const names = ctx.keyNames(key, true);
  if (names ? names.includes('constructor') : mayNameConstructor(ctx, key))
    ctx.report(key, {
      what: names
        ? `${short(ctx, node.expression)}("constructor")`
        : `${short(ctx, node.expression)}(<computed>)`,
      why: names
        ? `${REACHES}; test a value with instanceof or typeof instead`
        : `a key the checker cannot name could be "constructor", and ${REACHES}; name the member`,
    });
}

/** `v as unknown as (s: string) => unknown`: a cast that makes a function out of what was not one. */
function checkCast(ctx: RuleContext, node: ts.AsExpression | ts.TypeAssertion): void {
  if (ts.isConstTypeReference(node.type) || ctx.reportedWithin(node.expression)) return;
  const target = ctx.checker.getTypeFromTypeNode(node.type);
  const source = ctx.checker.getTypeAtLocation(node.expression);
  const toParameter = (target.flags & ts.TypeFlags.TypeParameter) !== 0 && ctx.isUnknown(source);
  if (!toParameter && !(isCallable(ctx, target) && !isCallable(ctx, source))) return;
  ctx.report(node.type, {
    what: `a cast to ${short(ctx, node.type)}`,
    why: 'a cast can make any value a function, the Function constructor included, which runs code from a string the check cannot see; give the function its type where it is defined',
  });
}

/** `const F: Fn = JSON.parse(s)`: an `any` where a function is expected becomes one unchecked. */
function checkAnyAsFunction(ctx: RuleContext, node: ts.Expression): void {
  if ((ctx.checker.getTypeAtLocation(node).flags & ts.TypeFlags.Any) === 0 || ctx.reportedWithin(node))
    return;
  const expected = ctx.checker.getContextualType(node);
  if (!expected || !isCallable(ctx, expected)) return;
  ctx.report(node, {
    what: `${short(ctx, node)} as a function`,
    why: 'a value of type any where a function is expected could be any function, the Function constructor included, which runs code from a string the check cannot see; give the value a type',
  });
}

/** `(v: unknown): v is Fn => true`: a guard that makes a function out of what was not one. */
function checkGuard(ctx: RuleContext, node: ts.TypePredicateNode): void {
  if (!node.type || !isCallable(ctx, ctx.checker.getTypeFromTypeNode(node.type))) return;
  ctx.report(node, {
    what: `a type guard for ${short(ctx, node.type)}`,
    why: 'a guard can make any value a function, the Function constructor included, which runs code from a string the check cannot see; give the function its type where it is defined',
  });
}

/**
 * A `constructor` the module declared itself as data (`{ constructor: 'a label' }`): its member
 * resolves only to the module's own property declarations, and what is read is no function and
 * not `any` — so even a cast that put a function there leaves it uncallable without another
 * finding.
 */
function isOwnData(ctx: RuleContext, read: ts.Node, receiver: ts.Node): boolean {
  const prop = ctx.propertyOf(ctx.checker.getTypeAtLocation(receiver), 'constructor');
  const decls = prop?.declarations ?? [];
  const own =
    decls.length > 0 &&
    decls.every(
      (d) =>
        d.getSourceFile() === ctx.sf &&
        (ts.isPropertyAssignment(d) ||
          ts.isShorthandPropertyAssignment(d) ||
          ts.isPropertySignature(d) ||
          ts.isPropertyDeclaration(d)),
    );
  const type = ctx.checker.getTypeAtLocation(read);
  return own && !ctx.isUnknown(type) && !isCallable(ctx, type);
}

/** Whether a key expression could be the string "constructor": not a number, symbol or literal. */
function mayNameConstructor(ctx: RuleContext, key: ts.Expression): boolean {
  const t = ctx.checker.getTypeAtLocation(key);
  const parts = t.isUnion() ? t.types : [t];
  const safe = ts.TypeFlags.NumberLike | ts.TypeFlags.BigIntLike | ts.TypeFlags.ESSymbolLike;
  return parts.some((p) => (p.flags & safe) === 0 && !(p.isStringLiteral() && p.value !== 'constructor'));
}

/** Functions and classes: what has call or construct signatures, or is the untyped `Function`. */
function isCallable(ctx: RuleContext, type: ts.Type): boolean {
  const parts = type.isUnion() || type.isIntersection() ? type.types : [type];
  return parts.some(
    (p) =>
      ctx.isUntypedFunction(p) || p.getCallSignatures().length > 0 || p.getConstructSignatures().length > 0,
  );
}

function isAnyOrCallable(ctx: RuleContext, type: ts.Type): boolean {
  return (type.flags & ts.TypeFlags.Any) !== 0 || isCallable(ctx, type);
}

/** `o[k](...)`, `new o[k](...)`, ``o[k]`...` ``, through parentheses and `!`. */
function isCallee(node: ts.Expression): boolean {
  let child: ts.Node = node;
  let p = node.parent;
  while (ts.isParenthesizedExpression(p) || ts.isNonNullExpression(p)) {
    child = p;
    p = p.parent;
  }
  if (ts.isCallExpression(p) || ts.isNewExpression(p)) return p.expression === child;
  return ts.isTaggedTemplateExpression(p) && p.tag === child;
}

/** `o[k] = v`: a write, which reads nothing. */
function isAssignmentTarget(node: ts.Expression): boolean {
  const p = node.parent;
  return ts.isBinaryExpression(p) && p.left === node && p.operatorToken.kind === ts.SyntaxKind.EqualsToken;
}

/** The qualified name of the library function a call resolves to (`Reflect.get`), if it is one. */
function calleeName(ctx: RuleContext, node: ts.CallExpression): string | undefined {
  const decl = ctx.checker.getResolvedSignature(node)?.declaration;
  if (!decl || ts.isJSDocSignature(decl) || !ctx.isLibFile(decl.getSourceFile())) return undefined;
  const name = (decl as ts.NamedDeclaration).name;
  const symbol = name ? ctx.checker.getSymbolAtLocation(name) : undefined;
  return symbol ? ctx.checker.getFullyQualifiedName(symbol) : undefined;
}

function short(ctx: RuleContext, node: ts.Node): string {
  const text = node.getText(ctx.sf).replace(/\s+/g, ' ');
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}
