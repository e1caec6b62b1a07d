// ESLint rule `kreconcile/prefer-defined` (issue 40 item 5): one way to build an object with optional fields.
// `...(x === undefined ? {} : { x })` and `...(a.b !== undefined ? { b: a.b } : {})` are written
// `...defined({ x, b: a.b })` (core/json/defined.ts). A conditional spread whose field is computed from the
// tested value (`{ y: f(x) }`) stays: `f` must not run on `undefined`, and `defined` would run it.

const isUndefined = (node) => node.type === 'Identifier' && node.name === 'undefined';
const isEmptyObject = (node) => node.type === 'ObjectExpression' && node.properties.length === 0;
/** `a?.b` and `a.b` name the same value once `a` is known to be defined. */
const plain = (text) => text.replace(/\?\./g, '.');

/** The tested expression and the object built when it is defined, for `t === undefined ? {} : o` and `!==`. */
const conditionalSpread = (node) => {
  const test = node.test;
  if (test.type !== 'BinaryExpression' || (test.operator !== '===' && test.operator !== '!==')) return undefined;
  const tested = isUndefined(test.right) ? test.left : isUndefined(test.left) ? test.right : undefined;
  if (tested === undefined) return undefined;
  const [empty, full] = test.operator === '===' ? [node.consequent, node.alternate] : [node.alternate, node.consequent];
  return isEmptyObject(empty) && full.type === 'ObjectExpression' ? { tested, full } : undefined;
};

export const preferDefined = {
  meta: {
    type: 'suggestion',
    docs: { description: 'optional fields are built with defined({ … }), not a conditional spread of the same value' },
    schema: [],
    messages: {
      preferDefined:
        '`...({{tested}} === undefined ? {} : { … })` spreads the tested value as it is: write `...defined({ … })` (core/json/defined.ts).',
    },
  },
  create(context) {
    const text = (node) => context.sourceCode.getText(node);
    return {
      'SpreadElement > ConditionalExpression'(node) {
        const spread = conditionalSpread(node);
        if (spread === undefined || spread.full.properties.length !== 1) return;
        const [field] = spread.full.properties;
        if (field.type !== 'Property' || field.computed) return;
        if (plain(text(field.value)) !== plain(text(spread.tested))) return;
        context.report({ node, messageId: 'preferDefined', data: { tested: text(spread.tested) } });
      },
    };
  },
};
