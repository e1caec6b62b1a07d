/**
 * `npm run schemas:serving`: records how a real kube-apiserver serves each built-in resource —
 * discovery (names, verbs, short names, categories) and the columns of its server-side printing
 * (the Table it answers an empty list with) — into `schemas/serving-<minor>.json`, which the
 * in-memory API server serves from (adapters/schemas/served-resources.ts). Starts the loopback
 * control plane on the kube-apiserver the project builds, or reads `--kubeconfig <path>`'s server
 * (an envtest kubeconfig: client certificate, certificate authority data).
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  getIn,
  isJsonArray,
  isJsonObject,
  objectFromEntries,
  type JsonObject,
  type JsonValue,
} from '../../core/json/json.js';
import { BUILTIN_SCHEMAS_VERSION } from '../../adapters/schemas/builtin-schemas.js';
import { ServingTablesCodec, type ServedResource } from '../../adapters/schemas/serving-tables.js';
import { findBinaries } from '../envtest/binaries.js';
import {
  kubeconfigServer as serverOf,
  getJson,
  type KubeconfigServer as Server,
} from '../envtest/kubeconfig-client.js';
import { startControlPlane } from '../envtest/control-plane.js';
import { jsonText } from '../../core/json/text.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SERVING_FILE = join('schemas', `serving-${BUILTIN_SCHEMAS_VERSION}.json`);
const TABLE = 'application/json;as=Table;g=meta.k8s.io;v=v1';
const get = getJson;

const strings = (value: JsonValue | undefined): ReadonlyArray<string> | undefined =>
  isJsonArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined;

const columnsOf = async (server: Server, prefix: string, resource: JsonObject): Promise<JsonValue | undefined> => {
  if (!(strings(resource.verbs) ?? []).includes('list')) return undefined;
  const table = await get(server, `${prefix}/${jsonText(resource.name)}?limit=1`, TABLE);
  return isJsonObject(table) ? table.columnDefinitions : undefined;
};

const resourcesOf = async (server: Server, groupVersion: string): Promise<ReadonlyArray<JsonValue>> => {
  const prefix = groupVersion === 'v1' ? '/api/v1' : `/apis/${groupVersion}`;
  const list = await get(server, prefix);
  const resources = isJsonObject(list) && isJsonArray(list.resources) ? list.resources.filter(isJsonObject) : [];
  const main = resources.filter((r) => typeof r.name === 'string' && !r.name.includes('/'));
  return Promise.all(
    main.map(async (r) => {
      const columns = await columnsOf(server, prefix, r);
      const { name, singularName, namespaced, kind, verbs, shortNames, categories } = r;
      const entry = { name, singularName, namespaced, kind, verbs, shortNames, categories, columns };
      return objectFromEntries(
        Object.entries(entry).flatMap(([k, v]): ReadonlyArray<readonly [string, JsonValue]> =>
          v === undefined ? [] : [[k, v]],
        ),
      );
    }),
  );
};

const groupVersionsOf = async (server: Server): Promise<ReadonlyArray<string>> => {
  const groups = await get(server, '/apis');
  const named = isJsonObject(groups) && isJsonArray(groups.groups) ? groups.groups.filter(isJsonObject) : [];
  const versions = named.flatMap((g) => (isJsonArray(g.versions) ? g.versions.filter(isJsonObject) : []));
  return ['v1', ...versions.flatMap((v) => (typeof v.groupVersion === 'string' ? [v.groupVersion] : []))];
};

/** Groups served by CustomResourceDefinitions (the test CRDs of a shared cluster): not built in. */
const crdGroups = async (server: Server): Promise<ReadonlySet<string>> => {
  const list = await get(server, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions');
  const items = isJsonObject(list) && isJsonArray(list.items) ? list.items.filter(isJsonObject) : [];
  return new Set(items.map((crd) => getIn(crd, ['spec', 'group'])).filter((g) => typeof g === 'string'));
};

const record = async (server: Server): Promise<JsonValue> => {
  const version = await get(server, '/version');
  const custom = await crdGroups(server);
  const groupVersions = (await groupVersionsOf(server)).filter((gv) => !custom.has(gv.split('/')[0] ?? ''));
  const entries = await Promise.all(groupVersions.map(async (gv) => [gv, await resourcesOf(server, gv)] as const));
  const kubernetesVersion = isJsonObject(version) ? jsonText(version.gitVersion) : 'unknown';
  return { kubernetesVersion, groupVersions: Object.fromEntries(entries) };
};

const readFrom = async (kubeconfigPath: string | undefined): Promise<JsonValue> => {
  if (kubeconfigPath !== undefined) return record(serverOf(kubeconfigPath));
  const lookup = findBinaries();
  if (!lookup.found) throw new Error(`${lookup.reason} (build them with npm run k8s:build)`);
  const plane = await startControlPlane({ binaries: lookup.binaries, controllerManager: false });
  try {
    return await record(serverOf(plane.kubeconfigPath));
  } finally {
    await plane.stop();
  }
};

/** One line per resource, so a change in a later release shows as a readable diff. */
const show = (groupVersions: Readonly<Record<string, ReadonlyArray<ServedResource>>>, version: string): string => {
  const blocks = Object.entries(groupVersions).map(
    ([gv, resources]) =>
      `    ${JSON.stringify(gv)}: [\n${resources.map((r) => `      ${JSON.stringify(r)}`).join(',\n')}\n    ]`,
  );
  return `{\n  "kubernetesVersion": ${JSON.stringify(version)},\n  "groupVersions": {\n${blocks.join(',\n')}\n  }\n}\n`;
};

const flag = process.argv.indexOf('--kubeconfig');
try {
  const recorded = ServingTablesCodec.decode(await readFrom(flag < 0 ? undefined : process.argv[flag + 1]));
  if (recorded._tag === 'Left') throw new Error('the server answered discovery in an unexpected shape');
  const { groupVersions } = recorded.right;
  writeFileSync(join(root, SERVING_FILE), show(groupVersions, recorded.right.kubernetesVersion));
  console.error(`${SERVING_FILE}: ${Object.keys(groupVersions).length} group-versions`);
} catch (error) {
  console.error(`schemas:serving: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
