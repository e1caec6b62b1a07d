/**
 * Field managers known to write fields an Application may also observe, and the fight that
 * follows when both do (docs/field-owners.md). The default table lists what kreconcile has seen on
 * a real API server or the managers' own sources document; operators add their own with
 * `--field-managers FILE` (decoded by `knownManagersCodec`).
 */
import * as t from 'io-ts';
import { fromPointer } from '../json/path.js';
import type { FieldOwner } from './owners.js';

export type KnownManager = {
  /** The name in `managedFields[].manager`. */
  readonly manager: string;
  /** Only writes through this subresource (`scale`, `status`); any write when absent. */
  readonly subresource?: string;
  /** The kinds it writes (any when absent). */
  readonly kinds?: ReadonlyArray<string>;
  /** Readable paths it owns, `[*]` for any list element: `webhooks[*].clientConfig.caBundle`. */
  readonly paths: ReadonlyArray<string>;
  /** Who it is, for people: `HorizontalPodAutoscaler (kube-controller-manager through /scale)`. */
  readonly controller: string;
};

export const DEFAULT_KNOWN_MANAGERS: ReadonlyArray<KnownManager> = [
  {
    // The HPA controller scales through the scale subresource as kube-controller-manager (seen on 1.36).
    manager: 'kube-controller-manager',
    subresource: 'scale',
    kinds: ['Deployment', 'StatefulSet', 'ReplicaSet', 'ReplicationController'],
    paths: ['spec.replicas'],
    controller: 'HorizontalPodAutoscaler (kube-controller-manager through /scale)',
  },
  {
    // cert-manager's CA injector (cert-manager/cert-manager#4838 names the manager `cainjector`).
    manager: 'cainjector',
    kinds: ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'],
    paths: ['webhooks[*].clientConfig.caBundle'],
    controller: "cert-manager's CA injector",
  },
  {
    manager: 'cainjector',
    kinds: ['APIService'],
    paths: ['spec.caBundle'],
    controller: "cert-manager's CA injector",
  },
  {
    manager: 'cainjector',
    kinds: ['CustomResourceDefinition'],
    paths: ['spec.conversion.webhook.clientConfig.caBundle'],
    controller: "cert-manager's CA injector",
  },
];

/** Bounds on a table read from a file an operator gives (it is printed and matched against every patch). */
const MAX_ENTRIES = 256;
const MAX_TEXT = 256;

const text = new t.Type<string, string, unknown>(
  'string (at most 256 characters)',
  (value): value is string => typeof value === 'string' && value.length > 0 && value.length <= MAX_TEXT,
  (value, context) =>
    typeof value === 'string' && value.length > 0 && value.length <= MAX_TEXT
      ? t.success(value)
      : t.failure(value, context),
  t.identity,
);

const knownManager = t.intersection([
  t.type({ manager: text, paths: t.array(text), controller: text }),
  t.partial({ subresource: text, kinds: t.array(text) }),
]);

/** The `--field-managers` file: a list of entries shaped as `KnownManager`. */
export const knownManagersCodec = new t.Type<ReadonlyArray<KnownManager>, ReadonlyArray<KnownManager>, unknown>(
  'Array<{manager, paths, controller, subresource?, kinds?}> (at most 256 entries)',
  (value): value is ReadonlyArray<KnownManager> => t.array(knownManager).is(value) && value.length <= MAX_ENTRIES,
  (value, context) => {
    if (Array.isArray(value) && value.length > MAX_ENTRIES) return t.failure(value, context, 'more than 256 entries');
    return t.array(knownManager).validate(value, context);
  },
  t.identity,
);

/** The known manager behind `owner`'s claim on the field at `pointer` of a `kind`, if any. */
export const knownManagerFor = (
  table: ReadonlyArray<KnownManager>,
  kind: string,
  pointer: string,
  owner: FieldOwner,
): KnownManager | undefined => {
  const tokens = fromPointer(pointer);
  return table.find(
    (known) =>
      known.manager === owner.manager &&
      (known.subresource === undefined || known.subresource === owner.subresource) &&
      (known.kinds === undefined || known.kinds.includes(kind)) &&
      known.paths.some((path) => overlaps(patternOf(path), tokens)),
  );
};

/** `webhooks[*].clientConfig.caBundle` → `['webhooks', '*', 'clientConfig', 'caBundle']`. */
const patternOf = (path: string): ReadonlyArray<string> =>
  path
    .replace(/\[\*\]/g, '.*')
    .split('.')
    .filter((step) => step !== '');

/** One path is within the other (a patch of a whole list element covers its `caBundle`, and the reverse). */
const overlaps = (pattern: ReadonlyArray<string>, tokens: ReadonlyArray<string>): boolean => {
  const shared = Math.min(pattern.length, tokens.length);
  for (let index = 0; index < shared; index++) {
    const step = pattern[index];
    const token = tokens[index] ?? '';
    if (step === '*' ? !/^(0|[1-9][0-9]*)$/.test(token) : step !== token) return false;
  }
  return true;
};

/** The manager names of a table: the runtime's caches keep their managedFields entries and drop the rest. */
export const managerNames = (table: ReadonlyArray<KnownManager>): ReadonlySet<string> =>
  new Set(table.map((known) => known.manager));
