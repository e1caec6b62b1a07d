/**
 * Protobuf request bodies of built-in kinds, decoded as kube-apiserver reads them: each fixture
 * (test/fixtures/protobuf/fixtures.json) is an object encoded by the real client-go protobuf
 * serializer beside the JSON Go's encoding/json writes for the same typed object, made by
 * `go run ./tools/k8s-go encode < test/fixtures/protobuf/manifests.json`. The decoder must give
 * that JSON: every field type (quantities, int-or-string, times and micro-times, byte maps,
 * inlined volume sources, raw extensions, pointer zeros such as `replicas: 0`).
 */
import { readFileSync } from 'node:fs';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { decodeProtobufBody } from '../../../../adapters/memory/http/protobuf-body.js';

type Fixture = { readonly protobuf: string; readonly json: { kind: string; metadata: { name: string } } };
const fixtures: ReadonlyArray<Fixture> = JSON.parse(
  readFileSync(new URL('../../../fixtures/protobuf/fixtures.json', import.meta.url), 'utf8'),
);

describe('protobuf request bodies of built-in kinds', () => {
  it('has fixtures of the kinds kubectl create sends', () => {
    const kinds = new Set(fixtures.map((fixture) => fixture.json.kind));
    for (const kind of ['Deployment', 'Job', 'CronJob', 'Service', 'Secret', 'ConfigMap', 'Namespace', 'Ingress'])
      expect(kinds).toContain(kind);
  });

  for (const fixture of fixtures)
    it(`decodes ${fixture.json.kind} ${fixture.json.metadata.name} to the JSON Go writes for it`, () => {
      expect(decodeProtobufBody(Buffer.from(fixture.protobuf, 'base64'))).toEqual(E.right(fixture.json));
    });

  it('refuses a kind the table lacks (415) and a truncated body (400)', () => {
    const deployment = Buffer.from(fixtures[0]?.protobuf ?? '', 'base64');
    const custom = Buffer.from(deployment);
    // Rewrite the envelope's apiVersion `apps/v1` into a custom group of the same length.
    custom.write('zz/v1', custom.indexOf('apps/v1'), 'latin1');
    const refused = decodeProtobufBody(custom);
    expect(E.isLeft(refused) && refused.left.code).toBe(415);
    const truncated = decodeProtobufBody(deployment.subarray(0, deployment.length - 7));
    expect(E.isLeft(truncated) && truncated.left.code).toBe(400);
  });
});
