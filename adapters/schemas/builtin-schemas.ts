/**
 * The compact schemas of Kubernetes' built-in kinds that ship with the package
 * (`schemas/kubernetes-<minor>.json`, written by `npm run schemas:update`, see tools/openapi).
 * Read once, when first asked for, from the package root (source and dist layouts differ in depth).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as E from 'fp-ts/lib/Either.js';
import { PathReporter } from 'io-ts/lib/PathReporter.js';
import { CompactSchemasCodec, type CompactSchemas } from '../../core/schema/catalog.js';

/** The Kubernetes minor version whose schemas are committed (the version tools/k8s-bin builds). */
export const BUILTIN_SCHEMAS_VERSION = '1.36';

const FILE = join('schemas', `kubernetes-${BUILTIN_SCHEMAS_VERSION}.json`);

/** A file of the package (`schemas/…`), found from the nearest directory above this module holding it. */
export const packageFilePath = (file: string): string => {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir))
    if (existsSync(join(dir, file))) return join(dir, file);
  throw new Error(`${file} is missing from the kreconcile package: reinstall it`);
};

let loaded: CompactSchemas | undefined;

/** The built-in kinds' schemas. Throws when the file is missing or malformed (a broken installation). */
export const builtinSchemas = (): CompactSchemas => {
  if (loaded !== undefined) return loaded;
  const path = packageFilePath(FILE);
  const decoded = CompactSchemasCodec.decode(JSON.parse(readFileSync(path, 'utf8')));
  if (E.isLeft(decoded)) throw new Error(`${path}: ${PathReporter.report(decoded).slice(0, 3).join('; ')}`);
  loaded = decoded.right;
  return loaded;
};
