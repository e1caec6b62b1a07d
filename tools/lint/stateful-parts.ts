/**
 * Lint step (issue 40 item 5, docs/decisions/0032-classes-and-factories.md): one way to write a stateful part.
 * A class when callers hold the part by its own type; a factory when they hold an interface. A factory is
 * recognised as a function that returns an object of functions closing over state of its own (a `let`, or a
 * Map/Set/WeakMap it builds); an exported one must name that interface as its declared return type, so its
 * callers depend on the interface and the state stays the closure's. A class in core is refused, an Error
 * subclass aside: the core keeps no state (a memo is a value its caller owns).
 *
 *   node --import tsx tools/lint/stateful-parts.ts   prints each finding as file:line; exit 1 when there is one
 */
import ts from 'typescript';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export const CHECKED_FOLDERS: ReadonlyArray<string> = ['core', 'app', 'adapters'];

const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name.startsWith('.')) return [];
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.endsWith('.arbitrary.ts') ? [path] : [];
  });

type FunctionLike = ts.FunctionDeclaration | ts.ArrowFunction | ts.FunctionExpression;

const blockBody = (node: ts.Node): ts.Block | undefined =>
  (ts.isFunctionDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node)) &&
  node.body !== undefined &&
  ts.isBlock(node.body)
    ? node.body
    : undefined;

const unwrapped = (expression: ts.Expression): ts.Expression =>
  ts.isParenthesizedExpression(expression) || ts.isAsExpression(expression) || ts.isSatisfiesExpression(expression)
    ? unwrapped(expression.expression)
    : expression;

const isFunctionValue = (node: ts.Node): boolean =>
  ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isMethodDeclaration(node);

/** An object literal with at least one method, function-valued property or getter. */
const isObjectOfFunctions = (expression: ts.Expression): boolean => {
  const object = unwrapped(expression);
  return (
    ts.isObjectLiteralExpression(object) &&
    object.properties.some(
      (p) =>
        isFunctionValue(p) || ts.isGetAccessor(p) || (ts.isPropertyAssignment(p) && isFunctionValue(p.initializer)),
    )
  );
};

/** State declared in the function's own body: a `let`, or a `new Map/Set/WeakMap`. */
const ownsState = (body: ts.Block, source: ts.SourceFile): boolean =>
  body.statements.some(
    (statement) =>
      ts.isVariableStatement(statement) &&
      ((statement.declarationList.flags & ts.NodeFlags.Let) !== 0 ||
        /\bnew (Map|Set|WeakMap)\b/.test(statement.getText(source))),
  );

/** The return statements of `body` itself, not of the functions nested in it. */
const ownReturns = (body: ts.Block): ts.ReturnStatement[] => {
  const found: ts.ReturnStatement[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isReturnStatement(node)) found.push(node);
    if (blockBody(node) === undefined && !ts.isArrowFunction(node)) ts.forEachChild(node, visit);
  };
  body.statements.forEach(visit);
  return found;
};

const isExported = (fn: FunctionLike): boolean => {
  const statement = ts.isFunctionDeclaration(fn) ? fn : fn.parent.parent?.parent;
  return (
    statement !== undefined &&
    (ts.isFunctionDeclaration(statement) || ts.isVariableStatement(statement)) &&
    (statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) ?? false)
  );
};

/** The declared return type: on the function, or on the variable that holds it. */
const declaredReturn = (fn: FunctionLike): ts.TypeNode | undefined =>
  fn.type ?? (ts.isVariableDeclaration(fn.parent) ? fn.parent.type : undefined);

const nameOf = (fn: FunctionLike, source: ts.SourceFile): string =>
  ts.isFunctionDeclaration(fn) ? (fn.name?.text ?? 'default') : fn.parent.getChildAt(0, source).getText(source);

const factoryFinding = (fn: FunctionLike, source: ts.SourceFile): string | undefined => {
  const body = blockBody(fn);
  if (body === undefined || !isExported(fn) || !ownsState(body, source)) return undefined;
  if (!ownReturns(body).some((r) => r.expression !== undefined && isObjectOfFunctions(r.expression))) return undefined;
  const declared = declaredReturn(fn);
  if (declared !== undefined && ts.isTypeReferenceNode(declared)) return undefined;
  return `${nameOf(fn, source)} is a stateful factory without a named interface: declare its return type as one`;
};

const at = (source: ts.SourceFile, node: ts.Node, root: string): string =>
  `${relative(root, source.fileName)}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;

/** An Error subclass is an error, not a part: a parser may throw one and turn it into data at its boundary. */
const extendsError = (node: ts.ClassDeclaration): boolean =>
  node.heritageClauses?.some((clause) => clause.types.some((type) => /Error$/.test(type.expression.getText()))) ??
  false;

/** The findings of one file, as `file:line: message`. */
export const findingsOf = (file: string, text: string, root: string): string[] => {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const inCore = relative(root, file).split(/[\\/]/)[0] === 'core';
  const findings: string[] = [];
  const visit = (node: ts.Node, topLevel: boolean): void => {
    if (ts.isClassDeclaration(node) && inCore && !extendsError(node))
      findings.push(`${at(source, node, root)}: class ${node.name?.text ?? ''} in core: the core keeps no state`);
    if (topLevel && (ts.isFunctionDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node))) {
      const finding = factoryFinding(node, source);
      if (finding !== undefined) findings.push(`${at(source, node, root)}: ${finding}`);
      return;
    }
    ts.forEachChild(node, (child) => visit(child, topLevel));
  };
  visit(source, true);
  return findings;
};

const main = (): void => {
  const root = resolve(dirname(new URL(import.meta.url).pathname), '..', '..');
  const folders = CHECKED_FOLDERS.map((folder) => join(root, folder)).filter(existsSync);
  const findings = folders.flatMap(sources).flatMap((file) => findingsOf(file, readFileSync(file, 'utf8'), root));
  findings.forEach((finding) => console.error(finding));
  if (findings.length > 0) {
    console.error(`${findings.length} stateful part(s) break docs/decisions/0032-classes-and-factories.md`);
    process.exit(1);
  }
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
