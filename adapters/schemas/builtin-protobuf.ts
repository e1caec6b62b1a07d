/**
 * The protobuf field table of Kubernetes' built-in kinds that ships with the package
 * (`schemas/kubernetes-<minor>.protobuf.json`, written by `npm run protobuf:update` from
 * k8s.io/api's struct tags, see tools/k8s-go): per kind its message type, per type its fields
 * as [number, JSON name, element, flags] in the JSON's order.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { PathReporter } from 'io-ts/lib/PathReporter.js';
import { BUILTIN_SCHEMAS_VERSION, packageFilePath } from './builtin-schemas.js';

/**
 * A field: protobuf number, JSON name (empty for an inlined struct), element (`string`, `int`,
 * `uint`, `bool`, `float64`, `float32`, `bytes`, `time`, `microtime`, `duration`, `quantity`,
 * `intorstring`, `raw`, or a type of the table), and Go's shape: `o` omitempty, `z` omitzero,
 * `p` pointer, `l` list, `m` map with string keys, `i` inlined, `w` a list wrapper's items.
 */
export const ProtobufFieldCodec = t.tuple([t.number, t.string, t.string, t.string]);
export type ProtobufField = t.TypeOf<typeof ProtobufFieldCodec>;

export const ProtobufTableCodec = t.type({
  kubernetesVersion: t.string,
  kinds: t.record(t.string, t.record(t.string, t.string)),
  types: t.record(t.string, t.array(ProtobufFieldCodec)),
});
export type ProtobufTable = t.TypeOf<typeof ProtobufTableCodec>;

const FILE = join('schemas', `kubernetes-${BUILTIN_SCHEMAS_VERSION}.protobuf.json`);

/** The table, read and checked. Throws when the file is missing or malformed (a broken installation). */
export const readProtobufTable = (): ProtobufTable => {
  const path = packageFilePath(FILE);
  const decoded = ProtobufTableCodec.decode(JSON.parse(readFileSync(path, 'utf8')));
  if (E.isLeft(decoded)) throw new Error(`${path}: ${PathReporter.report(decoded).slice(0, 3).join('; ')}`);
  return decoded.right;
};
