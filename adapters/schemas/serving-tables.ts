/**
 * The shape of `schemas/serving-<minor>.json` (adapters/schemas/served-resources.ts reads it, tools/openapi/serving.ts
 * writes it).
 */
import * as t from 'io-ts';

const ColumnDefinitionCodec = t.readonly(
  t.type({ name: t.string, type: t.string, format: t.string, description: t.string, priority: t.number }),
);
export type ColumnDefinition = t.TypeOf<typeof ColumnDefinitionCodec>;

const ServedResourceCodec = t.readonly(
  t.intersection([
    t.type({ name: t.string, singularName: t.string, namespaced: t.boolean, kind: t.string, verbs: t.array(t.string) }),
    t.partial({
      shortNames: t.array(t.string),
      categories: t.array(t.string),
      columns: t.array(ColumnDefinitionCodec),
    }),
  ]),
);
export type ServedResource = t.TypeOf<typeof ServedResourceCodec>;

export const ServingTablesCodec = t.readonly(
  t.type({ kubernetesVersion: t.string, groupVersions: t.record(t.string, t.array(ServedResourceCodec)) }),
);
export type ServingTables = t.TypeOf<typeof ServingTablesCodec>;
