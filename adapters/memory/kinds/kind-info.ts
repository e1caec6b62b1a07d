/** What the memory API server knows about one served kind: versions, scope, subresources, strategy flags. */
import type { JsonValue } from '../../../core/json/json.js';
import type { Scope } from '../../../core/model/scope.js';

export type KindInfo = {
  readonly group: string;
  readonly kind: string;
  readonly plural: string;
  readonly scope: Scope;
  /** Served versions; `any` for kinds registered without version knowledge. */
  readonly versions: ReadonlySet<string> | 'any';
  readonly statusSubresource: boolean;
  /** Whether the kind keeps `metadata.generation` (ConfigMap, Service, Namespace … do not). */
  readonly generation: boolean;
  /** Defined by a CustomResourceDefinition: unconditional updates refused, whole-object generation rule. */
  readonly custom: boolean;
  /** `openAPIV3Schema` per version, for pruning and defaulting of custom resources. */
  readonly schemas?: ReadonlyMap<string, JsonValue>;
  /** The CRD that defines the kind. */
  readonly crdName?: string;
  /**
   * The resourceVersion the kind's watch cache started at: a watch from before it is 410 Gone.
   * Built-ins start at boot; a custom kind when its CRD is established (as on a real server).
   */
  readonly watchCacheFrom?: number;
};

/** `group/Kind`, the storage identity of a kind (objects are served at any of its versions). */
export const groupKindKey = (group: string, kind: string): string => `${group}/${kind}`;

export const servesVersion = (info: KindInfo, version: string): boolean =>
  info.versions === 'any' || info.versions.has(version);

export const apiVersionOf = (group: string, version: string): string =>
  group === '' ? version : `${group}/${version}`;
