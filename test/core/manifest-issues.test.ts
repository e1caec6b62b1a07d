import { describe, expect, it } from 'vitest';
import { manifestIssues } from '../../core/validation/observer-schemas.js';
import type { Resource } from '../../core/model/resource.js';
import { refKey } from '../../core/model/resource.js';

const resource = (apiVersion: string, kind: string, name: string, namespace?: string): Resource => ({
  apiVersion,
  kind,
  metadata: namespace === undefined ? { name } : { name, namespace },
});

/** Resolves namespaces as the planner does for namespaced kinds: a resource without one lives in `shop`. */
const inShop = (r: Resource): string | undefined =>
  r.kind === 'Namespace' ? undefined : (r.metadata.namespace ?? 'shop');

/** The duplicates the check reported before it compared by parts: by `refKey` strings. */
const byKeys = (manifest: ReadonlyArray<Resource>): ReadonlyArray<string> => {
  const seen = new Map<string, number>();
  return manifest.flatMap((r, index) => {
    const key = refKey({ apiVersion: r.apiVersion, kind: r.kind, name: r.metadata.name, namespace: inShop(r) });
    const first = seen.get(key);
    if (first === undefined) seen.set(key, index);
    return first === undefined ? [] : [`${index}=${first}`];
  });
};

const duplicates = (manifest: ReadonlyArray<Resource>): ReadonlyArray<string> =>
  manifestIssues(manifest, inShop).map((issue) => {
    const found = /^spec\.manifest\[(\d+)\]$/.exec(issue.path);
    const first = /spec\.manifest\[(\d+)\]: each/.exec(issue.message);
    return `${found?.[1]}=${first?.[1]}`;
  });

describe('manifestIssues: duplicates', () => {
  it('finds the same resource by apiVersion, kind, resolved namespace and name, whatever else shares the name', () => {
    const manifest = [
      resource('v1', 'ConfigMap', 'web'),
      resource('v1', 'Service', 'web'),
      resource('v1', 'ConfigMap', 'web', 'other'),
      resource('v1', 'ConfigMap', 'web', 'shop'),
      resource('v1', 'Namespace', 'web'),
      resource('v1', 'Namespace', 'web', 'ignored'),
      resource('v1', 'Service', 'web'),
      resource('apps/v1', 'Deployment', 'api'),
    ];
    expect(duplicates(manifest)).toEqual(['3=0', '5=4', '6=1']);
    expect(duplicates(manifest)).toEqual(byKeys(manifest));
  });

  it('reports what the reference keys made the same when a part holds their separator', () => {
    // refKey joins the parts with `|`: these two are one key, and were reported as one resource.
    const manifest = [resource('v1', 'ConfigMap', 'b', 'a|x'), resource('v1', 'ConfigMap', 'x|b', 'a')];
    expect(duplicates(manifest)).toEqual(['1=0']);
    expect(duplicates(manifest)).toEqual(byKeys(manifest));
  });
});
