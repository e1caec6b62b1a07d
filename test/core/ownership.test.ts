/** Owner marks of an embedder's primary kind: they name the kind; Applications' marks are unchanged. */
import { describe, expect, it } from 'vitest';
import { isOwnedBy, ownerFor, ownerMark, primaryMarkPrefix, type Owner, type Resource } from '../../core/internal.js';
import { adoptionPatch, withOwnershipMarks } from '../../core/manifest/ownership.js';

const meta = { name: 'hello', namespace: 'team', uid: 'u-1' };
const greetingOwner = ownerFor({ apiVersion: 'example.kreconcile.io/v1', kind: 'Greeting', metadata: meta });
const applicationOwner = ownerFor({ apiVersion: 'kreconcile.io/v1alpha1', kind: 'Application', metadata: meta });
const configMap: Resource = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'c', namespace: 'team' },
};
const marked = (owner: Owner): Resource =>
  withOwnershipMarks(configMap, { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team', name: 'c' }, owner);

describe('ownership marks of a primary kind', () => {
  it('an Application keeps the plain mark and its controller reference', () => {
    expect(applicationOwner).toEqual({ namespace: 'team', name: 'hello', uid: 'u-1' });
    expect(ownerMark(applicationOwner)).toBe('team/hello');
    expect(marked(applicationOwner).metadata.ownerReferences).toEqual([
      {
        apiVersion: 'kreconcile.io/v1alpha1',
        kind: 'Application',
        name: 'hello',
        uid: 'u-1',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
  });

  it('a primary of another kind is named in the mark and the controller reference', () => {
    expect(ownerMark(greetingOwner)).toBe('Greeting.example.kreconcile.io:team/hello');
    expect(primaryMarkPrefix({ apiVersion: 'v1', kind: 'ConfigMap' })).toBe('ConfigMap:');
    const child = marked(greetingOwner);
    expect(child.metadata.annotations).toEqual({ 'kreconcile.io/owner': 'Greeting.example.kreconcile.io:team/hello' });
    expect(child.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'example.kreconcile.io/v1',
        kind: 'Greeting',
        name: 'hello',
        uid: 'u-1',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(adoptionPatch(configMap, greetingOwner).operations).toContainEqual({
      op: 'add',
      path: '/metadata/ownerReferences',
      value: [expect.objectContaining({ kind: 'Greeting' })],
    });
  });

  it("same name, different kinds: neither owns the other's children", () => {
    const ofGreeting = marked(greetingOwner);
    const ofApplication = marked(applicationOwner);
    expect(isOwnedBy(ofGreeting, greetingOwner)).toBe(true);
    expect(isOwnedBy(ofApplication, applicationOwner)).toBe(true);
    expect(isOwnedBy(ofGreeting, applicationOwner)).toBe(false);
    expect(isOwnedBy(ofApplication, greetingOwner)).toBe(false);
    const widget = ownerFor({ apiVersion: 'example.kreconcile.io/v1', kind: 'Widget', metadata: meta });
    expect(isOwnedBy(ofGreeting, widget)).toBe(false);
  });
});
