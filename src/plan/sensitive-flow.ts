/**
 * Where Math, Date (the constructor) and globalThis may flow in a plan module.
 *
 * Owns the rule that keeps their members visible to the checker: a member access, a call or `new`,
 * `instanceof` / `typeof` / equality, destructuring, or a copy into a variable of the very same type.
 * Anywhere else (an argument, a cast, a return, a literal, `extends`) is a finding. Never decides
 * which members are refused; `check-references.ts` does, at each member read.
 */
import ts from 'typescript';
import type { Rule } from './host-apis.ts';
import type { RuleContext } from './rule-context.ts';

/**
 * Math, Date and globalThis may be read through members, called or constructed, tested with
 * instanceof / typeof, or copied into a variable of the very same type. Anywhere else (an argument,
 * a cast, a return, a literal, a spread) the value's members escape the checker's view.
 */
export function checkSensitiveFlow(ctx: RuleContext, expr: ts.Expression): void {
  const type = ctx.checker.getTypeAtLocation(expr);
  const object = ctx.sensitiveObject(type);
  if (!object) return;
  let child: ts.Node = expr;
  let p = expr.parent;
  while (ts.isParenthesizedExpression(p) || ts.isNonNullExpression(p)) {
    child = p;
    p = p.parent;
  }
  const same = (n: ts.Node) => ctx.checker.getTypeAtLocation(n) === type;
  const ok =
    ((ts.isPropertyAccessExpression(p) || ts.isElementAccessExpression(p)) && p.expression === child) ||
    ((ts.isCallExpression(p) || ts.isNewExpression(p)) && p.expression === child) ||
    (ts.isBinaryExpression(p) && isHarmlessBinary(p, child)) ||
    ts.isTypeOfExpression(p) ||
    ts.isVoidExpression(p) ||
    ts.isExpressionStatement(p) ||
    (ts.isVariableDeclaration(p) &&
      p.initializer === child &&
      (ts.isObjectBindingPattern(p.name) || (ts.isIdentifier(p.name) && same(p.name)))) ||
    (ts.isBinaryExpression(p) &&
      p.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      p.right === child &&
      ts.isIdentifier(p.left) &&
      same(p.left));
  if (!ok) ctx.report(expr, { what: `${object} as a value`, why: hidesWhy(object) });
}

function isHarmlessBinary(p: ts.BinaryExpression, child: ts.Node): boolean {
  const k = p.operatorToken.kind;
  if (k === ts.SyntaxKind.InstanceOfKeyword) return p.right === child;
  return (
    k === ts.SyntaxKind.EqualsEqualsEqualsToken ||
    k === ts.SyntaxKind.ExclamationEqualsEqualsToken ||
    k === ts.SyntaxKind.EqualsEqualsToken ||
    k === ts.SyntaxKind.ExclamationEqualsToken
  );
}

export function hidesWhy(object: string): string {
  return `passing ${object} around hides which of its members are used, so the check cannot vet them; use its members directly (${object}.member)`;
}

export function computedRule(object: string): Rule {
  return {
    what: `${object}[<computed>]`,
    why: `a computed member of ${object} could be any of its members, including refused ones; name the member you need`,
  };
}
