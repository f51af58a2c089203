/**
 * File-level rules of the determinism check: what a plan module is allowed to be made of.
 *
 * Owns syntax errors (a file the check cannot read is refused), scripts (their top-level names are
 * global), triple-slash references (they bring in host typings), `declare` (it promises values the
 * module does not define), and imports: only type-only imports and `defineWorkflow` from Keel.
 * Never looks inside expressions; `check-references.ts` does.
 */
import ts from 'typescript';
import { importRule, type Rule } from './host-apis.ts';
import type { RuleContext } from './rule-context.ts';

const AMBIENT: Rule = {
  what: 'declare',
  why: 'an ambient declaration tells the checker a value exists that the module does not define; plan modules run with no host globals',
};

export function checkModuleShape(ctx: RuleContext): void {
  const { sf } = ctx;
  const syntax = ctx.program.getSyntacticDiagnostics(sf);
  for (const d of syntax) {
    const text = ts.flattenDiagnosticMessageText(d.messageText, '\n').replace(/\.$/, '');
    ctx.reportMessage(
      sf,
      'syntax error',
      `syntax error: ${text}; the check cannot read this file`,
      d.start ?? 0,
    );
  }
  if (!ts.isExternalModule(sf)) {
    ctx.reportMessage(
      sf,
      'script',
      'script is not allowed in a plan module: a file without import or export is a script, whose top-level names are global; end it with `export default defineWorkflow({...})`',
      0,
    );
  }
  const refs = [...sf.referencedFiles, ...sf.typeReferenceDirectives, ...sf.libReferenceDirectives];
  for (const r of refs) {
    const what = '/// <reference>';
    const message = `${what} is not allowed in a plan module: it brings declarations the module does not define (here ${JSON.stringify(r.fileName)}); plan modules see only the ES2023 library and keel/plan`;
    ctx.reportMessage(sf, what, message, r.pos);
  }
  for (const statement of sf.statements) checkStatement(ctx, statement);
}

function checkStatement(ctx: RuleContext, s: ts.Statement): void {
  if (ts.isImportDeclaration(s)) {
    if (!isAllowedImport(ctx, s)) ctx.report(s.moduleSpecifier, importRule(specifierText(s.moduleSpecifier)));
    return;
  }
  if (ts.isExportDeclaration(s) && s.moduleSpecifier && !s.isTypeOnly) {
    const typeOnly =
      s.exportClause &&
      ts.isNamedExports(s.exportClause) &&
      s.exportClause.elements.every((e) => e.isTypeOnly);
    if (!typeOnly) {
      const rule = importRule(specifierText(s.moduleSpecifier));
      ctx.report(s.moduleSpecifier, { what: rule.what, why: `re-exporting: ${rule.why}` });
    }
    return;
  }
  if (ts.isImportEqualsDeclaration(s) && !s.isTypeOnly) {
    const ref = s.moduleReference;
    const spec = ts.isExternalModuleReference(ref) ? specifierText(ref.expression) : ref.getText(ctx.sf);
    ctx.report(s, importRule(spec));
    return;
  }
  if (ts.isExportAssignment(s) && s.isExportEquals) {
    ctx.reportMessage(
      s,
      'export =',
      'export = is not allowed in a plan module: use `export default defineWorkflow({...})`',
    );
    return;
  }
  if (ctx.isAmbient(s)) ctx.report(s, AMBIENT);
}

/** A type-only import, or one whose value bindings all resolve to Keel's `defineWorkflow`. */
function isAllowedImport(ctx: RuleContext, s: ts.ImportDeclaration): boolean {
  const clause = s.importClause;
  if (!clause) return false; // `import 'x'` runs x for its effects
  if (clause.isTypeOnly) return true;
  if (clause.name && !isHelperBinding(ctx, clause.name)) return false;
  const bindings = clause.namedBindings;
  if (!bindings) return true;
  if (ts.isNamespaceImport(bindings)) return false; // `keel.defineWorkflow(...)` cannot be injected
  return bindings.elements.every((e) => e.isTypeOnly || isHelperBinding(ctx, e.name));
}

function isHelperBinding(ctx: RuleContext, name: ts.Identifier): boolean {
  const local = ctx.checker.getSymbolAtLocation(name);
  if (!local) return false;
  const target = local.flags & ts.SymbolFlags.Alias ? ctx.checker.getAliasedSymbol(local) : local;
  if (!ctx.isHelper(target)) return false;
  // Types beside defineWorkflow are fine; the only value is defineWorkflow itself.
  return (target.flags & ts.SymbolFlags.Value) === 0 || target.getName() === 'defineWorkflow';
}

function specifierText(node: ts.Node): string {
  return ts.isStringLiteralLike(node) ? node.text : node.getText();
}
