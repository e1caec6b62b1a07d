/** Core API used by the hook tests, plus the schema key (internal) to check schema order. */
export * from '../../../core/internal.js';
export { schemaKeyOf as schemaKeyOfForTests } from '../../../core/schema/lookup.js';
