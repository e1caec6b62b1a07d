/**
 * How kube-apiserver 1.36 serves each built-in resource, beyond its schema: discovery's names,
 * verbs, short names and categories (`kubectl get all`, `kubectl get deploy`), and the columns
 * of its server-side printing. Recorded from a real server into `schemas/serving-<minor>.json` by
 * `npm run schemas:serving` (tools/openapi/serving.ts); read once, when this module loads.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as E from 'fp-ts/lib/Either.js';
import { PathReporter } from 'io-ts/lib/PathReporter.js';
import { BUILTIN_SCHEMAS_VERSION } from './builtin-schemas.js';
import { ServingTablesCodec, type ServedResource, type ServingTables } from './serving-tables.js';

export type { ColumnDefinition, ServedResource } from './serving-tables.js';

export const SERVING_FILE = join('schemas', `serving-${BUILTIN_SCHEMAS_VERSION}.json`);

const load = (): ServingTables => {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const path = join(dir, SERVING_FILE);
    if (!existsSync(path)) continue;
    const decoded = ServingTablesCodec.decode(JSON.parse(readFileSync(path, 'utf8')));
    if (E.isLeft(decoded)) throw new Error(`${path}: ${PathReporter.report(decoded).slice(0, 3).join('; ')}`);
    return decoded.right;
  }
  throw new Error(`${SERVING_FILE} is missing from the kreconcile package: reinstall it`);
};

const TABLES = load();

/** Resources by `group/version/plural` (core: `/v1/pods`). */
const BY_RESOURCE: ReadonlyMap<string, ServedResource> = new Map(
  Object.entries(TABLES.groupVersions).flatMap(([groupVersion, resources]) => {
    const [group, version] = groupVersion.includes('/') ? groupVersion.split('/') : ['', groupVersion];
    return resources.map((resource) => [`${group}/${version}/${resource.name}`, resource] as const);
  }),
);

/** How the real server serves `plural` at `group/version`, or undefined for a resource it does not serve there. */
export const servedResource = (group: string, version: string, plural: string): ServedResource | undefined =>
  BY_RESOURCE.get(`${group}/${version}/${plural}`);
