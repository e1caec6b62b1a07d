/**
 * The key order of objects as kube-apiserver answers them. It encodes every answer (create, get,
 * list, watch, update, patch, status) through Go's `encoding/json`, which writes a map's keys
 * sorted by their bytes and a struct's fields in declaration order:
 * - a custom resource is unstructured (`map[string]interface{}` at every depth, metadata
 *   included), so every key of it comes back sorted;
 * - a built-in kind is a Go struct: its map-typed fields come back sorted (labels, annotations,
 *   ConfigMap and Secret data, selectors and matchLabels, nodeSelector, resource limits and
 *   requests, …). The struct fields' own order is not reproduced.
 * The memory server stores objects in this order (once, when it stores them), so a client that
 * depends on the order it wrote (a status rebuilt because conditions come back with sorted keys)
 * fails against it as against a real server. Keys that read as array indexes (`"0"`, `"10"`)
 * are the exception JavaScript imposes: an object lists them first, in numeric order, whatever
 * the order they were set in; a client parsing the real server's JSON sees the same.
 */
import { canonicalFieldsOf, EACH_ITEM, EACH_VALUE } from '../../../core/canonical/fields.js';
import type { KeyOrder, KeyPlaces } from '../json/index.js';
import type { KindInfo } from '../kinds/index.js';
import { objectStruct, type FieldType } from './builtin-field-types.js';

type Place = { sorted: boolean; fields: Map<string, Place>; items?: Place; values?: Place };

const place = (): Place => ({ sorted: false, fields: new Map() });

const field = (at: Place, name: string): Place => {
  const next = at.fields.get(name) ?? place();
  at.fields.set(name, next);
  return next;
};

/** The map-typed fields the typing of built-in kinds describes (builtin-field-types.ts). */
const fromType = (at: Place, type: FieldType): void => {
  switch (type.type) {
    case 'map':
      at.sorted = true;
      fromType((at.values ??= place()), type.values);
      return;
    case 'list':
      fromType((at.items ??= place()), type.items);
      return;
    case 'struct':
      for (const [name, inner] of Object.entries(type.fields)) fromType(field(at, name), inner);
      return;
    default:
      return;
  }
};

/**
 * The maps core/canonical/fields.ts knows of: the container of every `{}` step (resource lists
 * of containers, pods, claims, quotas…) and every `omitempty` field, a Go map or slice (only an
 * object is sorted).
 */
const fromCanonical = (root: Place, group: string, kind: string): void => {
  for (const { path, type } of canonicalFieldsOf(group, kind)) {
    let at = root;
    for (const step of path) {
      if (step === EACH_VALUE) {
        at.sorted = true;
        at = at.values ??= place();
      } else at = step === EACH_ITEM ? (at.items ??= place()) : field(at, step);
    }
    if (type === 'omitEmpty') at.sorted = true;
  }
};

/** The places below which something is sorted (the rest is copied as it is). */
const pruned = (at: Place): KeyPlaces | undefined => {
  const fields = new Map(
    [...at.fields].flatMap(([name, inner]) => {
      const kept = pruned(inner);
      return kept === undefined ? [] : [[name, kept] as const];
    }),
  );
  const items = at.items === undefined ? undefined : pruned(at.items);
  const values = at.values === undefined ? undefined : pruned(at.values);
  if (!at.sorted && fields.size === 0 && items === undefined && values === undefined) return undefined;
  return {
    sorted: at.sorted,
    fields,
    ...(items === undefined ? {} : { items }),
    ...(values === undefined ? {} : { values }),
  };
};

const builtinOrders = new Map<string, KeyOrder | undefined>();

/** The key order kube-apiserver answers objects of the kind with (see the module comment). */
export const serverKeyOrder = (info: Pick<KindInfo, 'group' | 'kind' | 'custom'>): KeyOrder | undefined => {
  if (info.custom) return 'sorted';
  const key = `${info.group}/${info.kind}`;
  if (!builtinOrders.has(key)) {
    const root = place();
    fromType(root, objectStruct(info.group, info.kind, false));
    fromCanonical(root, info.group, info.kind);
    builtinOrders.set(key, pruned(root));
  }
  return builtinOrders.get(key);
};
