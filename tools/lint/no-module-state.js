// ESLint rule `kreconcile/no-module-state` (issue 18): a module of the core keeps no state between
// calls. Forbidden at module level: `let` and `var`, and a `Map`, `WeakMap` or `Set` that is ever
// written (`set`, `add`, `delete`, `clear`, anywhere in the module). Constant tables built once and
// only read stay allowed. A memo is a value its caller owns (core/memo/memo.ts).

const COLLECTIONS = new Set(['Map', 'WeakMap', 'Set']);
const WRITES = new Set(['set', 'add', 'delete', 'clear']);

/** The `new Map(...)` (or WeakMap, Set) a module-level initializer evaluates to, through `as`/`satisfies`/`!`. */
const collectionOf = (node) => {
  let expression = node;
  while (
    expression &&
    (expression.type === 'TSAsExpression' ||
      expression.type === 'TSSatisfiesExpression' ||
      expression.type === 'TSNonNullExpression' ||
      expression.type === 'TSTypeAssertion')
  )
    expression = expression.expression;
  return expression?.type === 'NewExpression' &&
    expression.callee.type === 'Identifier' &&
    COLLECTIONS.has(expression.callee.name)
    ? expression.callee.name
    : undefined;
};

/** Whether a reference is the object of a write call: `x.set(…)`, `x.add(…)`, `x.delete(…)`, `x.clear()`. */
const isWrite = (reference) => {
  const member = reference.identifier.parent;
  return (
    member?.type === 'MemberExpression' &&
    member.object === reference.identifier &&
    !member.computed &&
    member.property.type === 'Identifier' &&
    WRITES.has(member.property.name) &&
    member.parent?.type === 'CallExpression' &&
    member.parent.callee === member
  );
};

const moduleLevelDeclarations = (program) =>
  program.body.flatMap((statement) => {
    const declaration =
      statement.type === 'ExportNamedDeclaration' && statement.declaration ? statement.declaration : statement;
    return declaration.type === 'VariableDeclaration' ? [declaration] : [];
  });

export const noModuleState = {
  meta: {
    type: 'problem',
    docs: { description: 'no module-level mutable state: a memo is a value its caller owns' },
    schema: [],
    messages: {
      mutableBinding:
        'module-level `{{kind}}` is state shared by every caller: make it `const`, or keep it in a value the caller owns (core/memo/memo.ts).',
      writtenCollection:
        'module-level {{collection}} `{{name}}` is written ({{write}}): state shared by every caller; keep it in a value the caller owns (core/memo/memo.ts).',
    },
  },
  create(context) {
    return {
      Program(program) {
        const scope = context.sourceCode.getScope(program);
        // ES modules have a module scope below the global one: module-level bindings live there.
        const moduleScope = scope.childScopes.find((child) => child.type === 'module') ?? scope;
        for (const declaration of moduleLevelDeclarations(program)) {
          if (declaration.kind !== 'const') {
            context.report({ node: declaration, messageId: 'mutableBinding', data: { kind: declaration.kind } });
            continue;
          }
          for (const declarator of declaration.declarations) {
            const collection = collectionOf(declarator.init);
            if (collection === undefined || declarator.id.type !== 'Identifier') continue;
            const variable = moduleScope.set.get(declarator.id.name);
            const write = variable?.references.find(isWrite);
            if (write !== undefined)
              context.report({
                node: declarator,
                messageId: 'writtenCollection',
                data: {
                  collection,
                  name: declarator.id.name,
                  write: `${write.identifier.name}.${write.identifier.parent.property.name}(…)`,
                },
              });
          }
        }
      },
    };
  },
};

export default { rules: { 'no-module-state': noModuleState } };
