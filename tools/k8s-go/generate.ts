/**
 * `npm run protobuf:update`: writes `schemas/kubernetes-<minor>.protobuf.json`, the table the
 * in-memory API server decodes protobuf request bodies with (adapters/memory/http/protobuf-body.ts).
 * The Go program beside this file reads it from k8s.io/api's struct tags (the source of the
 * generated.proto files); kept here are the kinds the committed schema file lists (the ones the
 * real server serves) and the types they reach, one line per type.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { PathReporter } from 'io-ts/lib/PathReporter.js';
import { CompactSchemasCodec } from '../../core/schema/catalog.js';
import { ProtobufFieldCodec, type ProtobufField } from '../../adapters/schemas/builtin-protobuf.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const schemaFile = join(root, 'schemas', 'kubernetes-1.36.json');
const outFile = join(root, 'schemas', 'kubernetes-1.36.protobuf.json');

type Field = ProtobufField;
/** What the Go program prints: a type being walked is null until its fields are known (never in the output). */
const GoTableCodec = t.type({
  kubernetesVersion: t.string,
  kinds: t.record(t.string, t.record(t.string, t.string)),
  types: t.record(t.string, t.union([t.array(ProtobufFieldCodec), t.null])),
});

const decoded = <A>(codec: t.Decoder<unknown, A>, text: string): A => {
  const result = codec.decode(JSON.parse(text));
  if (E.isLeft(result)) throw new Error(PathReporter.report(result).slice(0, 3).join('; '));
  return result.right;
};

/**
 * `k8s.io/api/apps/v1.Deployment` → `apps/v1.Deployment`; `k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta` →
 * `meta/v1.ObjectMeta`.
 */
const short = (name: string): string =>
  name.replace(/^k8s\.io\/api\//, '').replace(/^k8s\.io\/apimachinery\/pkg\/apis\//, '');

const served = decoded(CompactSchemasCodec, readFileSync(schemaFile, 'utf8'));
const table = decoded(
  GoTableCodec,
  execFileSync('go', ['run', '.', served.kubernetesVersion], { cwd: here, encoding: 'utf8', maxBuffer: 64 << 20 }),
);

const kinds: Record<string, Record<string, string>> = {};
const pending: string[] = [];
for (const [apiVersion, byKind] of Object.entries(table.kinds).sort(([a], [b]) => (a < b ? -1 : 1)))
  for (const [kind, type] of Object.entries(byKind).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (served.kinds[apiVersion]?.[kind] === undefined) continue;
    (kinds[apiVersion] ??= {})[kind] = short(type);
    pending.push(type);
  }
const types = new Map<string, ReadonlyArray<Field>>();
while (pending.length > 0) {
  const type = pending.pop() ?? '';
  const fields = table.types[type];
  if (types.has(type) || fields === undefined || fields === null) continue;
  types.set(
    type,
    fields.map(([number, name, element, flags]) => [number, name, short(element), flags]),
  );
  for (const [, , element] of fields) if (table.types[element] !== undefined) pending.push(element);
}
const lines = (entries: ReadonlyArray<readonly [string, unknown]>): string =>
  entries.map(([key, value]) => `    ${JSON.stringify(key)}: ${JSON.stringify(value)}`).join(',\n');
const text = `{\n  "kubernetesVersion": ${JSON.stringify(table.kubernetesVersion)},\n  "kinds": {\n${lines(Object.entries(kinds))}\n  },\n  "types": {\n${lines([...types].map(([name, fields]) => [short(name), fields] as const).sort(([a], [b]) => (a < b ? -1 : 1)))}\n  }\n}\n`;
writeFileSync(outFile, text);
console.error(
  `${outFile}: ${Object.values(kinds).reduce((n, k) => n + Object.keys(k).length, 0)} kinds, ${types.size} types, ${text.length} bytes`,
);
