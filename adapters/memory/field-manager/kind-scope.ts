/**
 * Where a write's ownership is computed: the kind's type (its OpenAPI schema for a built-in
 * kind, the CRD's structural schema for a custom resource), the fields the write's strategy
 * resets (status on the main resource; spec, and labels or all metadata, on /status), and
 * the kind's empty object a create starts from.
 */
import { isJsonObject, type JsonObject } from '../../../core/json/json.js';
import { kindStruct, zeroStruct } from '../../../core/canonical/go-types.js';
import { builtinSchemas } from '../../schemas/builtin-schemas.js';
import type { KindInfo } from '../kinds/index.js';
import { EMPTY_FIELD_SET, fieldSetOfPaths, type FieldSet } from './field-set.js';
import { trackApply, type WriteScope } from './field-manager.js';
import * as E from 'fp-ts/lib/Either.js';
import { fieldElement } from './path-element.js';
import { deducedType, type TypeRef } from './schema-types.js';
import { typingProblem } from './typed-fields.js';

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

const versionOf = (apiVersion: string): string => apiVersion.slice(apiVersion.indexOf('/') + 1);

/**
 * A custom resource's root: its structural schema, with ObjectMeta for metadata (the CRD's metadata schema only
 * constrains it).
 */
const customRoot = (schema: JsonObject): JsonObject => {
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  return {
    ...schema,
    properties: {
      ...properties,
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { $ref: OBJECT_META },
    },
  };
};

export const rootType = (info: KindInfo, apiVersion: string): TypeRef => {
  const file = builtinSchemas();
  if (info.custom) {
    const schema = info.schemas?.get(versionOf(apiVersion));
    return isJsonObject(schema)
      ? { mode: 'typed', node: customRoot(schema), defs: file.schemas }
      : deducedType(file.schemas);
  }
  const name = file.kinds[apiVersion]?.[info.kind];
  return name === undefined ? deducedType(file.schemas) : { mode: 'typed', node: { $ref: name }, defs: file.schemas };
};

const STATUS = fieldSetOfPaths([[fieldElement('status')]]);
const SPEC_ONLY = fieldSetOfPaths([[fieldElement('spec')]]);
const SPEC_AND_LABELS = fieldSetOfPaths([[fieldElement('spec')], [fieldElement('metadata'), fieldElement('labels')]]);
const CUSTOM_STATUS_RESETS = fieldSetOfPaths([[fieldElement('spec')], [fieldElement('metadata')]]);

/** The fields a write cannot own because its strategy resets them (GetResetFields). */
export const resetFields = (info: KindInfo, subresource: string): FieldSet => {
  if (!info.statusSubresource) return EMPTY_FIELD_SET;
  if (subresource !== 'status') return STATUS;
  if (info.custom) return CUSTOM_STATUS_RESETS;
  // As status-rules.ts keeps them: a Deployment's /status keeps its labels too (deploymentStatusStrategy).
  return info.group === 'apps' && info.kind === 'Deployment' ? SPEC_AND_LABELS : SPEC_ONLY;
};

export const writeScope = (info: KindInfo, apiVersion: string, subresource: string, now: string): WriteScope => {
  const struct = info.custom ? undefined : kindStruct(apiVersion, info.kind);
  return {
    type: rootType(info, apiVersion),
    version: apiVersion,
    ignored: resetFields(info, subresource),
    subresource,
    now,
    empty: () => (struct === undefined ? {} : zeroStruct(struct)),
  };
};

/**
 * What a forced server-side apply by `manager` makes of `live` (an object of a built-in kind, or
 * of a kind without schema), managedFields included: the server's merge and removal without the
 * server around it, for pure simulations of an apply.
 */
/** The type of an object of a built-in kind by its apiVersion and kind (deduced for other kinds). */
const builtinTypeOf = (object: JsonObject): TypeRef => {
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const file = builtinSchemas();
  const name = typeof object.kind === 'string' ? file.kinds[apiVersion]?.[object.kind] : undefined;
  return name === undefined ? deducedType(file.schemas) : { mode: 'typed', node: { $ref: name }, defs: file.schemas };
};

/** Whether the server could not type `object` to apply it (a keyed list item without its keys, or named twice). */
export const untypable = (object: JsonObject): boolean =>
  typingProblem(object, builtinTypeOf(object), false) !== undefined;

export const forcedApply = (live: JsonObject, config: JsonObject, manager: string): JsonObject => {
  const apiVersion = typeof config.apiVersion === 'string' ? config.apiVersion : '';
  const scope: WriteScope = {
    type: builtinTypeOf(config),
    version: apiVersion,
    ignored: EMPTY_FIELD_SET,
    subresource: '',
    now: '',
    empty: () => ({}),
  };
  const applied = trackApply(scope, live, config, manager, true);
  return E.isRight(applied) ? applied.right : live;
};
