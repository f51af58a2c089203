/**
 * Expression rules of the determinism check: every name, member, binding and call, resolved
 * through the type checker to the declaration it denotes.
 *
 * Owns the walk over a plan module's value positions. A name must resolve to the module's own
 * (non-ambient) declarations, an ES2023 built-in that is not refused, or `defineWorkflow`; Math,
 * Date and globalThis may only be used in ways that keep their members visible; where the checker
 * knows nothing (`any`), calls are refused. Never matches text: aliases fall out of resolution.
 */
import ts from 'typescript';
import { checkFunctionConstructor } from './function-constructor.ts';
import {
  CALL_DATE_RULE,
  hostGlobalRule,
  importedBindingRule,
  isHostGlobal,
  isSensitiveMember,
  NEW_DATE_RULE,
} from './host-apis.ts';
import type { RuleContext } from './rule-context.ts';
import { checkSensitiveFlow, computedRule, hidesWhy } from './sensitive-flow.ts';

const UNKNOWN_WHY =
  'the checker cannot resolve it (its type is any), so it could be a refused API; give the value a type';

export function checkReferences(ctx: RuleContext): void {
  const bindings: ts.BindingElement[] = [];
  // Post-order: a receiver or callee is judged before what reads or calls it, so one
  // mistake is reported once, where it starts (`process` rather than also `.env`).
  const visit = (node: ts.Node): void => {
    if (isOutsideValues(node)) return;
    ts.forEachChild(node, visit);
    // Roads to the Function constructor first: a read of `constructor` is the finding, not what follows it.
    checkFunctionConstructor(ctx, node);
    if (ts.isIdentifier(node)) checkIdentifier(ctx, node);
    else if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node))
      checkMember(ctx, node);
    else if (ts.isBindingElement(node)) bindings.push(node);
    else if (ts.isCallExpression(node) || ts.isNewExpression(node) || ts.isTaggedTemplateExpression(node))
      checkCall(ctx, node);
    else if (ts.isMetaProperty(node) && node.keywordToken === ts.SyntaxKind.ImportKeyword) {
      const why = 'it describes where the module was loaded from, which differs between machines';
      ctx.report(node, { what: 'import.meta', why });
    }
  };
  visit(ctx.sf);
  // Destructuring last: its initializer (a later sibling) must have been judged first.
  for (const el of bindings) checkBindingElement(ctx, el);
}

/** Types, interfaces, imports (see check-module-shape.ts) and ambient declarations hold no runtime values. */
function isOutsideValues(node: ts.Node): boolean {
  if (ts.isExpressionWithTypeArguments(node)) {
    const clause = node.parent;
    const classExtends =
      ts.isHeritageClause(clause) &&
      clause.token === ts.SyntaxKind.ExtendsKeyword &&
      ts.isClassLike(clause.parent);
    return !classExtends;
  }
  if (ts.isTypeNode(node) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) return true;
  if (ts.isImportDeclaration(node) || ts.isImportEqualsDeclaration(node) || ts.isExportDeclaration(node))
    return true;
  return (
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DeclareKeyword)
  );
}

/** True when `id` reads a value (not a declaration name, member name, label or type name). */
function isValueReference(id: ts.Identifier): boolean {
  const p = id.parent;
  if (ts.isShorthandPropertyAssignment(p)) return p.name === id;
  if (ts.isPropertyAccessExpression(p)) return p.expression === id;
  if (ts.isQualifiedName(p) || ts.isMetaProperty(p)) return false;
  if ((p as ts.NamedDeclaration).name === id) return false;
  if ((ts.isBindingElement(p) || ts.isImportSpecifier(p) || ts.isExportSpecifier(p)) && p.propertyName === id)
    return false;
  return !(ts.isLabeledStatement(p) || ts.isBreakOrContinueStatement(p));
}

/** The literal member read right after `node` (`process.env` -> "env"), to name the finding precisely. */
function memberAfter(ctx: RuleContext, node: ts.Node): string | undefined {
  const p = node.parent;
  if (ts.isPropertyAccessExpression(p) && p.expression === node) return p.name.text;
  if (ts.isElementAccessExpression(p) && p.expression === node) {
    const names = ctx.keyNames(p.argumentExpression, true, true);
    return names?.length === 1 ? names[0] : undefined;
  }
  return undefined;
}

function checkIdentifier(ctx: RuleContext, id: ts.Identifier): void {
  if (!isValueReference(id)) return;
  const p = id.parent;
  const symbol = ts.isShorthandPropertyAssignment(p)
    ? ctx.checker.getShorthandAssignmentValueSymbol(p)
    : ctx.checker.getSymbolAtLocation(id);
  if (!symbol) {
    ctx.report(id, hostGlobalRule(id.text, memberAfter(ctx, id)));
    return;
  }
  if (symbol.flags & ts.SymbolFlags.Alias) {
    checkImportedUse(ctx, id, symbol);
    return;
  }
  const decls = symbol.declarations ?? [];
  const own = decls.filter((d) => d.getSourceFile() === ctx.sf);
  if (own.some((d) => ctx.isAmbient(d))) {
    const why = 'it is only declared with `declare`, a promise of a value the module does not define';
    ctx.report(id, { what: id.text, why });
    return;
  }
  const rule = ctx.libRuleOf(symbol);
  if (rule) {
    ctx.report(id, rule);
    return;
  }
  // A built-in that other typings augment (Uint8Array in @types/node) is still the built-in.
  const builtIn = decls.some((d) => ctx.isLibFile(d.getSourceFile()));
  const elsewhere = decls.find((d) => d.getSourceFile() !== ctx.sf && !ctx.isLibFile(d.getSourceFile()));
  if (elsewhere && own.length === 0 && !builtIn) {
    const where = elsewhere.getSourceFile().fileName;
    const why = `it is declared outside the module (in ${where}); a plan module sees only its own declarations, ES2023 built-ins and defineWorkflow`;
    ctx.report(
      id,
      isHostGlobal(id.text) ? hostGlobalRule(id.text, memberAfter(ctx, id)) : { what: id.text, why },
    );
    return;
  }
  checkSensitiveFlow(ctx, id);
}

/** A use of an imported binding: fine for `defineWorkflow`, otherwise named after its module. */
function checkImportedUse(ctx: RuleContext, id: ts.Identifier, symbol: ts.Symbol): void {
  if (ctx.isHelper(ctx.checker.getAliasedSymbol(symbol))) return;
  const decl = symbol.declarations?.[0];
  let specifier = '(unknown module)';
  let imported: string | undefined;
  const owner =
    decl && ts.findAncestor(decl, (n) => ts.isImportDeclaration(n) || ts.isImportEqualsDeclaration(n));
  if (owner && ts.isImportDeclaration(owner) && ts.isStringLiteralLike(owner.moduleSpecifier))
    specifier = owner.moduleSpecifier.text;
  if (owner && ts.isImportEqualsDeclaration(owner)) {
    const ref = owner.moduleReference;
    specifier =
      ts.isExternalModuleReference(ref) && ts.isStringLiteralLike(ref.expression)
        ? ref.expression.text
        : ref.getText(ctx.sf);
    imported = memberAfter(ctx, id);
  }
  if (decl && ts.isImportSpecifier(decl)) imported = (decl.propertyName ?? decl.name).text;
  else if (decl && ts.isImportClause(decl)) imported = 'default';
  else if (decl && ts.isNamespaceImport(decl)) imported = memberAfter(ctx, id);
  const via = imported !== undefined && imported !== id.text ? `imported as ${id.text}` : undefined;
  ctx.report(id, importedBindingRule(specifier, imported), via);
}

function checkMember(ctx: RuleContext, node: ts.PropertyAccessExpression | ts.ElementAccessExpression): void {
  const receiver = ctx.checker.getTypeAtLocation(node.expression);
  const key = ts.isPropertyAccessExpression(node) ? node.name : node.argumentExpression;
  // Reported already as a road to the Function constructor (function-constructor.ts).
  if (ctx.reportedWithin(key)) return;
  const object = ctx.sensitiveObject(receiver);
  const names = ctx.keyNames(key, ts.isElementAccessExpression(node), object !== undefined);
  if (!names) {
    if (object) ctx.report(key, computedRule(object));
    return;
  }
  for (const name of names) {
    const direct = ts.isPropertyAccessExpression(node)
      ? ctx.checker.getSymbolAtLocation(node.name)
      : undefined;
    const prop = direct ?? ctx.propertyOf(receiver, name);
    const unknown = ctx.isUnknown(receiver) && !ctx.reportedWithin(node.expression);
    if (vetMember(ctx, key, { name, prop, object, unknown, next: memberAfter(ctx, node) })) return;
  }
  checkSensitiveFlow(ctx, node);
}

/** `const { now } = Date`, `function f({ random }: Math)`: each key is a member read of the parent. */
function checkBindingElement(ctx: RuleContext, el: ts.BindingElement): void {
  const pattern = el.parent;
  if (!ts.isObjectBindingPattern(pattern)) return;
  const root = ts.findAncestor(pattern, (n) => ts.isVariableDeclaration(n) || ts.isParameter(n));
  const init =
    root && (ts.isVariableDeclaration(root) || ts.isParameter(root)) ? root.initializer : undefined;
  if (init && ctx.reportedWithin(init)) return;
  const type = ctx.checker.getTypeAtLocation(pattern);
  const object = ctx.sensitiveObject(type);
  if (el.dotDotDotToken) {
    if (object) ctx.report(el, { what: `...rest of ${object}`, why: hidesWhy(object) });
    return;
  }
  const key = el.propertyName ?? el.name;
  const names = ctx.keyNames(key, false, object !== undefined);
  if (!names) {
    if (object) ctx.report(key, computedRule(object));
    return;
  }
  for (const name of names) {
    const prop = ctx.propertyOf(type, name);
    const found = { name, prop, object, unknown: ctx.isUnknown(type), via: 'destructured' };
    if (vetMember(ctx, key, found)) return;
  }
}

interface MemberRead {
  readonly name: string;
  /** What the checker resolved the member to, if anything. */
  readonly prop: ts.Symbol | undefined;
  readonly object: 'Math' | 'Date' | 'globalThis' | undefined;
  /** The receiver is `any` (and was not reported already). */
  readonly unknown: boolean;
  /** The member read right after this one (`globalThis.process.env` -> "env"). */
  readonly next?: string | undefined;
  readonly via?: string;
}

/**
 * One member read: a refused built-in is reported; a global read through globalThis must be an
 * ES built-in (anything else is a host global); a sensitive name read from `any` is reported.
 */
function vetMember(ctx: RuleContext, key: ts.Node, m: MemberRead): boolean {
  const rule = ctx.libRuleOf(m.prop);
  if (rule) ctx.report(key, rule, m.via);
  else if (m.object === 'globalThis' && !isLibSymbol(ctx, m.prop))
    ctx.report(key, hostGlobalRule(m.name, m.next), m.via);
  else if (!m.prop && m.unknown && isSensitiveMember(m.name))
    ctx.report(key, { what: `.${m.name}`, why: UNKNOWN_WHY }, m.via);
  else return false;
  return true;
}

function isLibSymbol(ctx: RuleContext, symbol: ts.Symbol | undefined): boolean {
  const decls = symbol?.declarations ?? [];
  // The checker's own intrinsics (`globalThis.globalThis`, `globalThis.undefined`) have no declarations.
  if (symbol && decls.length === 0)
    return symbol.getName() === 'globalThis' || symbol.getName() === 'undefined';
  return decls.some((d) => ctx.isLibFile(d.getSourceFile()));
}

function checkCall(
  ctx: RuleContext,
  node: ts.CallExpression | ts.NewExpression | ts.TaggedTemplateExpression,
) {
  if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
    const why = 'it loads a module at run time; a plan module is evaluated alone, without a module loader';
    return ctx.report(node, { what: 'import()', why });
  }
  const callee = ts.isTaggedTemplateExpression(node) ? node.tag : node.expression;
  if (callee.kind === ts.SyntaxKind.SuperKeyword || ctx.reportedWithin(callee)) return;
  const type = ctx.checker.getTypeAtLocation(callee);
  if (ctx.sensitiveObject(type) === 'Date') {
    if (!ts.isNewExpression(node)) return ctx.report(node, CALL_DATE_RULE);
    const first = node.arguments?.[0];
    if (!first || ts.isSpreadElement(first)) ctx.report(node, NEW_DATE_RULE);
    return;
  }
  const shown = `${short(ctx, callee)}()`;
  if (ctx.isUnknown(type)) return ctx.report(callee, { what: shown, why: UNKNOWN_WHY });
  if (ctx.isUntypedFunction(type)) {
    const why =
      'a value of the untyped `Function` type can be any function, including the Function constructor';
    return ctx.report(callee, { what: shown, why });
  }
  const signature = ctx.checker.getResolvedSignature(node);
  const decl = signature?.declaration;
  const rule = decl && !ts.isJSDocSignature(decl) ? ctx.libRuleOfDeclaration(decl) : undefined;
  if (rule) ctx.report(callee, rule, `called as ${shown}`);
}

function short(ctx: RuleContext, node: ts.Node): string {
  const text = node.getText(ctx.sf).replace(/\s+/g, ' ');
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}
