/**
 * Field types and validation: decoding objects to their Go types, structural schemas, metadata, names and
 * label syntax.
 */
export { kindCauses } from './kind-validation.js';
export { isDnsSubdomain, isLabelValue, isQualifiedName } from './label-syntax.js';
export { createdMeta, metaCauses, timestamp, updatedMeta } from './object-meta.js';
export { validateName } from './object-names.js';
export { pruneAndDefaultResource } from './structural-schema.js';
export { checkAppliedTypes, convertApplied, decodeObject, decodePatched } from './typed-decoding.js';
export { serverKeyOrder } from './key-order.js';
