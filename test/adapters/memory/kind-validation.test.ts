/**
 * The workload rules kube-apiserver answers 422 for, in its order (per container: the name, the
 * image, then a duplicate name): the strategic merge differential met a `$patch: replace` that
 * left two containers named alike, which the real server refuses naming both causes.
 */
import { describe, expect, it } from 'vitest';
import { kindCauses } from '../../../adapters/memory/typing/kind-validation.js';

const deployment = (containers: ReadonlyArray<Record<string, string>>) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers } },
  },
});

describe('workload validation', () => {
  it("a container name used twice is a Duplicate value, after that container's own causes", () => {
    expect(kindCauses('apps/Deployment', deployment([{ name: 'web' }, { name: 'web' }]))).toEqual([
      { field: 'spec.template.spec.containers[0].image', reason: 'FieldValueRequired', message: 'Required value' },
      { field: 'spec.template.spec.containers[1].image', reason: 'FieldValueRequired', message: 'Required value' },
      {
        field: 'spec.template.spec.containers[1].name',
        reason: 'FieldValueDuplicate',
        message: 'Duplicate value: "web"',
      },
    ]);
  });

  it('distinct names pass; a `__proto__` name is an ordinary string', () => {
    const containers = [
      { name: '__proto__', image: 'a' },
      { name: 'b', image: 'b' },
    ];
    expect(kindCauses('apps/Deployment', deployment(containers))).toEqual([]);
  });
});
