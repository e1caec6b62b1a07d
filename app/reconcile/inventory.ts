/**
 * The inventory: what `kreconcile apply` (no operator) wrote for an Application, kinds and
 * objects, recorded in the cluster in a ConfigMap beside the Application (docs/decisions/0028).
 * `plan --kubeconfig` and `snapshot` read it, so a kind removed from the manifest is still listed
 * and its objects (carrying the owner mark) pruned; the operator reads it when it takes an
 * Application over (its first reconcile, before the finalizer), so either flow can follow the other.
 *
 * Anyone who may edit ConfigMaps in the namespace can write it: it is read bounded and decoded
 * entry by entry, what does not decode is skipped, and it only ever widens what is READ (which
 * kinds are listed for objects carrying this Application's owner mark, in which namespaces) — what
 * is deleted is still only what carries our marks and what the tenancy policy allows, as for the
 * `kreconcile.io/intent-kinds` annotation (intent-kinds.ts).
 */
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import {
  fnv1a32,
  getOwn,
  isJsonArray,
  isJsonObject,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  patternStringCodec,
  refKey,
  type JsonValue,
  type ObjectRef,
  type Owner,
  type Resource,
} from '../../core/internal.js';
import { KindCodec, kindKey, parsedOrNothing, type Kind } from './intent-kinds.js';
import { defined } from '../../core/json/defined.js';

export const INVENTORY_PREFIX = 'kreconcile-inventory.';

/** Marks the ConfigMap as an inventory, naming whose (for people and for `kubectl get -l`). */
export const INVENTORY_OF_ANNOTATION = 'kreconcile.io/inventory-of';
export const INVENTORY_LABEL = 'kreconcile.io/inventory';

/** At most this many kinds: an apply that would write more is refused before any write (nothing forgotten). */
export const MAX_INVENTORY_KINDS = 256;

/** At most this many objects are recorded or read; beyond it the kinds alone still find every object by its mark. */
export const MAX_INVENTORY_OBJECTS = 4_096;

/** Longest `data.kinds` / `data.objects` text read or written (a ConfigMap holds at most 1 MiB in all). */
export const MAX_KINDS_TEXT = 128 * 1024;
export const MAX_OBJECTS_TEXT = 768 * 1024;

/** What an inventory records. `complete`: whether `objects` names every object (else the kinds still do). */
export type Inventory = {
  readonly kinds: ReadonlyArray<Kind>;
  readonly objects: ReadonlyArray<ObjectRef>;
  readonly complete: boolean;
};

export const EMPTY_INVENTORY: Inventory = { kinds: [], objects: [], complete: true };

// Object names are path segments (RBAC names hold ':'); namespaces are DNS labels.
const NAME = /^(?!\.\.?$)[^/%\u0000-\u001f\u007f]+$/;
const NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

const RefCodec = t.intersection([
  KindCodec,
  t.type({ name: patternStringCodec('name', NAME, 253) }),
  t.partial({ namespace: patternStringCodec('namespace', NAMESPACE, 63) }),
]);

const MAX_NAME = 253;

/**
 * The inventory ConfigMap's name for an Application: `kreconcile-inventory.<name>`, or, for a name
 * too long for that, its first characters and a hash of the whole name (still one per Application).
 */
export const inventoryName = (owner: Pick<Owner, 'name'>): string => {
  const plain = `${INVENTORY_PREFIX}${owner.name}`;
  if (plain.length <= MAX_NAME) return plain;
  const hash = fnv1a32(owner.name).toString(16).padStart(8, '0');
  const head = plain.slice(0, MAX_NAME - hash.length - 1).replace(/[-.]+$/, '');
  return `${head}-${hash}`;
};

/** Where an Application's inventory lives: a ConfigMap in the Application's namespace. */
export const inventoryRef = (owner: Pick<Owner, 'namespace' | 'name'>): ObjectRef => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  namespace: owner.namespace,
  name: inventoryName(owner),
});

const dataText = (configMap: Resource, key: string, limit: number): string | undefined => {
  const data = getOwn(configMap, 'data');
  const text = isJsonObject(data) ? getOwn(data, key) : undefined;
  return typeof text === 'string' && text.length <= limit ? text : undefined;
};

const decodedList = <A>(text: string | undefined, codec: t.Decoder<unknown, A>, limit: number): ReadonlyArray<A> => {
  const parsed: JsonValue | undefined = text === undefined ? undefined : parsedOrNothing(text);
  if (!isJsonArray(parsed)) return [];
  const found: A[] = [];
  for (const entry of parsed) {
    if (found.length === limit) break;
    const decoded = codec.decode(entry);
    if (E.isRight(decoded)) found.push(decoded.right);
  }
  return found;
};

/**
 * The inventory a ConfigMap holds: `EMPTY_INVENTORY` for anything else; entries that do not decode
 * are skipped; at most `MAX_INVENTORY_KINDS` kinds (those of the objects included) and
 * `MAX_INVENTORY_OBJECTS` objects, each once, objects only of the kinds kept.
 */
export const inventoryOf = (configMap: Resource | undefined): Inventory => {
  if (configMap === undefined || configMap.apiVersion !== 'v1' || configMap.kind !== 'ConfigMap')
    return EMPTY_INVENTORY;
  const listed = decodedList(dataText(configMap, 'objects', MAX_OBJECTS_TEXT), RefCodec, MAX_INVENTORY_OBJECTS);
  const named = decodedList(dataText(configMap, 'kinds', MAX_KINDS_TEXT), KindCodec, MAX_INVENTORY_KINDS);
  const kinds = distinctKinds([...named, ...listed]).slice(0, MAX_INVENTORY_KINDS);
  const kept = new Set(kinds.map(kindKey));
  const objects = distinctRefs(listed.filter((ref) => kept.has(kindKey(ref))));
  const data = getOwn(configMap, 'data');
  return { kinds, objects, complete: !isJsonObject(data) || getOwn(data, 'complete') !== 'false' };
};

const distinctKinds = (kinds: ReadonlyArray<Kind>): ReadonlyArray<Kind> => {
  const found = new Map<string, Kind>();
  for (const kind of kinds) found.set(kindKey(kind), { apiVersion: kind.apiVersion, kind: kind.kind });
  return [...found.values()];
};

const distinctRefs = (refs: ReadonlyArray<ObjectRef>): ReadonlyArray<ObjectRef> => {
  const found = new Map<string, ObjectRef>();
  for (const ref of refs)
    found.set(refKey(ref), {
      apiVersion: ref.apiVersion,
      kind: ref.kind,
      ...defined({ namespace: ref.namespace }),
      name: ref.name,
    });
  return [...found.values()];
};

/**
 * `recorded` with `added` objects and without `removed` ones. The kinds keep every kind recorded
 * (a kind leaves only with its last object) and gain the added objects' kinds. Objects beyond
 * `MAX_INVENTORY_OBJECTS` are left out and the inventory marked incomplete: its kinds still find them.
 */
export const withObjects = (
  recorded: Inventory,
  added: ReadonlyArray<ObjectRef>,
  removed: ReadonlyArray<ObjectRef> = [],
): Inventory => {
  const gone = new Set(removed.map(refKey));
  const all = distinctRefs([...recorded.objects, ...added]).filter((ref) => !gone.has(refKey(ref)));
  const objects = all.slice(0, MAX_INVENTORY_OBJECTS);
  // A kind is dropped only when the record names every object and none of that kind is left.
  const complete = recorded.complete && objects.length === all.length;
  const left = new Set(objects.map(kindKey));
  const emptied = new Set(removed.map(kindKey).filter((key) => !left.has(key)));
  const kinds = distinctKinds([...recorded.kinds, ...added]).filter((kind) => !complete || !emptied.has(kindKey(kind)));
  return { kinds, objects, complete };
};

/**
 * The ConfigMap holding `inventory` for `owner`, or why it cannot be written: more kinds than the
 * bound (refused, so that nothing is forgotten), or texts over the ConfigMap's size.
 */
export const inventoryConfigMap = (
  owner: Pick<Owner, 'namespace' | 'name'>,
  inventory: Inventory,
): E.Either<string, Resource> => {
  if (inventory.kinds.length > MAX_INVENTORY_KINDS)
    return E.left(
      `the inventory holds at most ${MAX_INVENTORY_KINDS} kinds and this Application's writes name ${inventory.kinds.length}: split the Application`,
    );
  const kinds = JSON.stringify(inventory.kinds);
  const objectsText = JSON.stringify(inventory.objects);
  const fits = objectsText.length <= MAX_OBJECTS_TEXT;
  if (kinds.length > MAX_KINDS_TEXT)
    return E.left("the inventory's kinds exceed its size bound: split the Application");
  const ref = inventoryRef(owner);
  return E.right({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: ref.name,
      namespace: owner.namespace,
      // Labelled as ours, so an operator's ConfigMap cache holds it (never pruned: it carries no owner mark).
      labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE, [INVENTORY_LABEL]: 'true' },
      annotations: { [INVENTORY_OF_ANNOTATION]: `${owner.namespace}/${owner.name}` },
    },
    data: {
      kinds,
      objects: fits ? objectsText : '[]',
      complete: inventory.complete && fits ? 'true' : 'false',
    },
  });
};

/**
 * At most this many namespaces of an inventory's objects are read per namespace (a tenant's record cannot make more
 * lists).
 */
export const MAX_INVENTORY_NAMESPACES = 64;

/**
 * The inventory as entries of a status manifest (`{apiVersion, kind, metadata}`): how the live
 * reader is told to read its kinds (and, per namespace, its objects' namespaces, at most
 * `MAX_INVENTORY_NAMESPACES` of them) too.
 */
export const inventoryEntries = (inventory: Inventory): ReadonlyArray<Resource> => {
  const namespaces = new Set<string | undefined>([undefined]);
  for (const ref of inventory.objects) if (namespaces.size <= MAX_INVENTORY_NAMESPACES) namespaces.add(ref.namespace);
  return [
    ...inventory.kinds.map((kind) => ({ apiVersion: kind.apiVersion, kind: kind.kind, metadata: { name: '' } })),
    ...inventory.objects
      .filter((ref) => namespaces.has(ref.namespace))
      .map((ref) => ({
        apiVersion: ref.apiVersion,
        kind: ref.kind,
        metadata: { name: ref.name, ...defined({ namespace: ref.namespace }) },
      })),
  ];
};
