/**
 * Turning a checked plan module into JavaScript the sandbox can evaluate.
 *
 * Owns the TypeScript-to-ES2022 step (`ts.transpileModule`) and the removal of every import: the
 * sandbox has no module loader, and `defineWorkflow` is a sandbox global, so an import of it
 * becomes nothing (or `const alias = defineWorkflow`). Never lets an import through; never
 * evaluates anything. Must only ever see text the determinism check passed.
 */
import ts from 'typescript';
import { ErrorCode, KeelError } from '../core/errors.ts';

const COMPILER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ES2022,
  isolatedModules: true,
  verbatimModuleSyntax: false,
  sourceMap: false,
  inlineSourceMap: false,
  removeComments: true,
};

export function transpilePlan(text: string, file: string): string {
  const out = ts.transpileModule(text, {
    compilerOptions: COMPILER_OPTIONS,
    fileName: file,
    reportDiagnostics: true,
    transformers: { before: [removeImports] },
  });
  const problem = out.diagnostics?.find((d) => d.category === ts.DiagnosticCategory.Error);
  if (problem) {
    const text = ts.flattenDiagnosticMessageText(problem.messageText, '\n');
    throw new KeelError(ErrorCode.planInvalid, `${file}: cannot transpile the plan module: ${text}`, {
      file,
    });
  }
  return out.outputText;
}

/** Drops imports and re-exports; an imported `defineWorkflow` under another name becomes an alias. */
const removeImports: ts.TransformerFactory<ts.SourceFile> = (context) => (sf) => {
  const f = context.factory;
  const statements: ts.Statement[] = [];
  for (const s of sf.statements) {
    if (ts.isImportEqualsDeclaration(s) || (ts.isExportDeclaration(s) && s.moduleSpecifier)) continue;
    if (!ts.isImportDeclaration(s)) {
      statements.push(s);
      continue;
    }
    const clause = s.importClause;
    const named = clause && !clause.isTypeOnly ? clause.namedBindings : undefined;
    if (!named || !ts.isNamedImports(named)) continue;
    for (const e of named.elements) {
      if (
        e.isTypeOnly ||
        (e.propertyName ?? e.name).text !== 'defineWorkflow' ||
        e.name.text === 'defineWorkflow'
      )
        continue;
      const alias = f.createVariableDeclaration(
        e.name.text,
        undefined,
        undefined,
        f.createIdentifier('defineWorkflow'),
      );
      statements.push(
        f.createVariableStatement(undefined, f.createVariableDeclarationList([alias], ts.NodeFlags.Const)),
      );
    }
  }
  return f.updateSourceFile(sf, statements);
};
