/**
 * What every determinism rule shares: the checker, the file, reporting, and symbol resolution.
 *
 * Owns the questions the rules ask the type checker (is this declared by the ES library? by Keel's
 * `defineWorkflow`? is this type `any`? is this value Math, Date or globalThis?) so that every rule
 * answers them the same way. Never walks the tree and never decides what is refused.
 */
import { resolve } from 'node:path';
import ts from 'typescript';
import { libRule, type Rule } from './host-apis.ts';
import type { PlanFinding } from './plan-finding.ts';
import { HELPER_FILE } from './plan-program.ts';

export class RuleContext {
  readonly findings: PlanFinding[] = [];
  private readonly spans: [number, number][] = [];

  constructor(
    readonly program: ts.Program,
    readonly checker: ts.TypeChecker,
    readonly sf: ts.SourceFile,
    readonly file: string,
  ) {}

  /** Reports `<what> is not allowed in a plan module (<via>): <why>` at the node's first token. */
  report(node: ts.Node, rule: Rule, via?: string): void {
    const detail = via === undefined ? '' : ` (${via})`;
    this.reportMessage(node, rule.what, `${rule.what} is not allowed in a plan module${detail}: ${rule.why}`);
  }

  reportMessage(node: ts.Node, what: string, message: string, at = node.getStart(this.sf)): void {
    const { line, character } = this.sf.getLineAndCharacterOfPosition(at);
    this.findings.push({ file: this.file, line: line + 1, column: character + 1, what, message });
    this.spans.push([node.getStart(this.sf), node.end]);
  }

  /** True when something inside `node` was reported already (so a call of it is not reported twice). */
  reportedWithin(node: ts.Node): boolean {
    const start = node.getStart(this.sf);
    return this.spans.some(([s, e]) => s >= start && e <= node.end);
  }

  isLibFile(sf: ts.SourceFile): boolean {
    return this.program.isSourceFileDefaultLibrary(sf);
  }

  /** The refusal for a symbol declared by the ES library (`Math.random`), if any of its declarations is one. */
  libRuleOf(symbol: ts.Symbol | undefined): Rule | undefined {
    for (const decl of symbol?.declarations ?? []) {
      const rule = this.libRuleOfDeclaration(decl);
      if (rule) return rule;
    }
    return undefined;
  }

  libRuleOfDeclaration(decl: ts.Declaration | undefined): Rule | undefined {
    if (!decl || !this.isLibFile(decl.getSourceFile())) return undefined;
    const name = (decl as ts.NamedDeclaration).name;
    const symbol = name ? this.checker.getSymbolAtLocation(name) : undefined;
    return symbol ? libRule(this.checker.getFullyQualifiedName(symbol)) : undefined;
  }

  /** True for Keel's `defineWorkflow` (and the types beside it), reached through any import or re-export. */
  isHelper(symbol: ts.Symbol): boolean {
    const decls = symbol.declarations ?? [];
    return decls.length > 0 && decls.every((d) => resolve(d.getSourceFile().fileName) === HELPER_FILE);
  }

  /** Inside `declare ...` (or a declaration file): it promises a value without defining one. */
  isAmbient(node: ts.Node): boolean {
    if (node.getSourceFile().isDeclarationFile) return true;
    const declared = (n: ts.Node) =>
      ts.canHaveModifiers(n) &&
      (ts.getModifiers(n) ?? []).some((m) => m.kind === ts.SyntaxKind.DeclareKeyword);
    return ts.findAncestor(node, declared) !== undefined;
  }

  /** `any`, `unknown` or the checker's error type: nothing is known about the value. */
  isUnknown(type: ts.Type): boolean {
    return (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) !== 0;
  }

  /** The name of the ES library object whose members include refused ones, when `type` is one. */
  sensitiveObject(type: ts.Type): 'Math' | 'Date' | 'globalThis' | undefined {
    const symbol = type.getSymbol();
    if (!symbol) return undefined;
    const name = symbol.getName();
    if (name === 'globalThis' && (symbol.declarations ?? []).length === 0) return 'globalThis';
    const fromLib = (symbol.declarations ?? []).some((d) => this.isLibFile(d.getSourceFile()));
    if (fromLib && name === 'Math') return 'Math';
    if (fromLib && name === 'DateConstructor') return 'Date';
    return undefined;
  }

  /** The untyped `Function` interface: calling such a value can run anything. */
  isUntypedFunction(type: ts.Type): boolean {
    const symbol = type.getSymbol();
    return (
      symbol?.getName() === 'Function' &&
      (symbol.declarations ?? []).some((d) => this.isLibFile(d.getSourceFile()))
    );
  }

  /**
   * The property names an access or binding key can denote: its literal text, or every member of
   * a literal (union) type (`Object.keys` of plain data). Undefined when it can be any string.
   * With `strict` (the receiver is Math, Date or globalThis) types are not trusted, since a cast can
   * lie: only a literal, or a `const` initialised with one, names a member.
   */
  keyNames(key: ts.Node, isExpression = false, strict = false): string[] | undefined {
    if (!isExpression && (ts.isIdentifier(key) || ts.isPrivateIdentifier(key))) return [key.text];
    const expr = ts.isComputedPropertyName(key) ? key.expression : key;
    const literal = this.literalText(expr);
    if (literal !== undefined) return [literal];
    if (strict) return undefined;
    const type = this.checker.getTypeAtLocation(expr);
    const parts = type.isUnion() ? type.types : [type];
    const names: string[] = [];
    for (const t of parts) {
      if (t.isStringLiteral() || t.isNumberLiteral()) names.push(String(t.value));
      else return undefined;
    }
    return names;
  }

  /** `'random'`, `7`, or a `const` declared with such a literal (followed through const aliases). */
  private literalText(expr: ts.Node, depth = 0): string | undefined {
    while (ts.isParenthesizedExpression(expr)) expr = expr.expression;
    if (ts.isStringLiteralLike(expr) || ts.isNumericLiteral(expr)) return expr.text;
    if (!ts.isIdentifier(expr) || depth > 8) return undefined;
    const decl = this.checker.getSymbolAtLocation(expr)?.valueDeclaration;
    if (!decl || !ts.isVariableDeclaration(decl) || !decl.initializer || decl.type) return undefined;
    const isConst = (ts.getCombinedNodeFlags(decl) & ts.NodeFlags.Const) !== 0;
    return isConst ? this.literalText(decl.initializer, depth + 1) : undefined;
  }

  /** The property `name` of `type`, looked up the way a member access would. */
  propertyOf(type: ts.Type, name: string): ts.Symbol | undefined {
    return this.checker.getPropertyOfType(this.checker.getApparentType(type), name);
  }
}
