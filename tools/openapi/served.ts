/**
 * Reads what a live API server serves for the compact schema file: `/version`, the `/openapi/v3`
 * index and each group-version's document, and discovery's resource kinds (so the file lists the
 * kinds users write, not `DeleteOptions` or `WatchEvent`, which every group's schemas name too).
 */
import * as E from 'fp-ts/lib/Either.js';
import { createKubernetesCluster } from '../../adapters/kubernetes/index.js';
import { createRestClient } from '../../adapters/kubernetes/rest-client.js';
import { getOwn, isJsonArray, isJsonObject, type JsonObject, type JsonValue } from '../../core/json/json.js';
import { showClusterError } from '../../core/ports/errors.js';
import type { CompactSchemas } from '../../core/schema/catalog.js';
import { compactSchemas } from './compact.js';

type Get = (path: string, query?: Readonly<Record<string, string>>) => Promise<JsonValue>;

const getterFor = (kubeconfigPath: string): Get => {
  const cluster = createKubernetesCluster({ kubeconfigPath });
  const rest = createRestClient(cluster.kubeConfig, 60_000);
  return async (path, query = {}) => {
    const answer = await rest.send({ method: 'GET', path, query })();
    if (E.isLeft(answer)) throw new Error(`GET ${path}: ${showClusterError(answer.left)}`);
    return answer.right;
  };
};

/**
 * `api/v1` → `v1`, `apis/apps/v1` → `apps/v1`; other index entries (`version`, `.well-known/…`) are no group-version.
 */
const apiVersionOfPath = (path: string): string | undefined => {
  const parts = path.split('/');
  if (parts[0] === 'api' && parts.length === 2) return parts[1];
  if (parts[0] === 'apis' && parts.length === 3) return `${parts[1]}/${parts[2]}`;
  return undefined;
};

/** The kinds of a discovery resource list (`/api/v1`, `/apis/apps/v1`) that are resources, not subresources. */
const resourceKindsOf = (list: JsonValue): ReadonlySet<string> => {
  const resources = isJsonObject(list) ? getOwn(list, 'resources') : undefined;
  if (!isJsonArray(resources)) return new Set();
  return new Set(
    resources.flatMap((resource) =>
      isJsonObject(resource) && typeof resource.name === 'string' && !resource.name.includes('/')
        ? typeof resource.kind === 'string'
          ? [resource.kind]
          : []
        : [],
    ),
  );
};

/** The groups CustomResourceDefinitions serve: not Kubernetes' own, so left out of the built-in schemas. */
const crdGroups = async (get: Get): Promise<ReadonlySet<string>> => {
  const list = await get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions');
  const items = isJsonObject(list) ? getOwn(list, 'items') : undefined;
  return new Set(
    (isJsonArray(items) ? items : []).flatMap((crd) => {
      const spec = isJsonObject(crd) ? getOwn(crd, 'spec') : undefined;
      const group = isJsonObject(spec) ? getOwn(spec, 'group') : undefined;
      return typeof group === 'string' ? [group] : [];
    }),
  );
};

/** The compact schemas of the built-in kinds of the server a kubeconfig points at (CRD-served groups left out). */
export const readServedSchemas = async (kubeconfigPath: string): Promise<CompactSchemas> => {
  const get = getterFor(kubeconfigPath);
  const custom = await crdGroups(get);
  const version = await get('/version');
  const gitVersion = isJsonObject(version) ? getOwn(version, 'gitVersion') : undefined;
  if (typeof gitVersion !== 'string') throw new Error('GET /version: no gitVersion');
  const index = await get('/openapi/v3');
  const paths = isJsonObject(index) ? getOwn(index, 'paths') : undefined;
  if (!isJsonObject(paths)) throw new Error('GET /openapi/v3: no paths');
  const documents = new Map<string, JsonObject>();
  const resourceKinds = new Map<string, ReadonlySet<string>>();
  for (const [path, entry] of Object.entries(paths).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const apiVersion = apiVersionOfPath(path);
    const url = isJsonObject(entry) ? getOwn(entry, 'serverRelativeURL') : undefined;
    if (apiVersion === undefined || typeof url !== 'string') continue;
    if (apiVersion.includes('/') && custom.has(apiVersion.slice(0, apiVersion.lastIndexOf('/')))) continue;
    const [documentPath = '', query = ''] = url.split('?');
    const document = await get(documentPath, Object.fromEntries(new URLSearchParams(query)));
    if (isJsonObject(document)) documents.set(apiVersion, document);
    resourceKinds.set(apiVersion, resourceKindsOf(await get(`/${path}`)));
  }
  return compactSchemas({ kubernetesVersion: gitVersion, documents, resourceKinds });
};
