/** Recognising the two kinds of object the CLI reads specially: Applications and CRDs. */
import { APPLICATION_KIND, getOwn, groupOf, type JsonObject } from '../../../core/internal.js';

const stringAt = (object: JsonObject, key: string): string | undefined => {
  const value = getOwn(object, key);
  return typeof value === 'string' ? value : undefined;
};

/** Any version of kreconcile's Application (decoding then insists on the supported one). */
export const isApplication = (object: JsonObject): boolean =>
  stringAt(object, 'kind') === APPLICATION_KIND && groupOf(stringAt(object, 'apiVersion') ?? '') === 'kreconcile.io';

export const isCustomResourceDefinition = (object: JsonObject): boolean =>
  stringAt(object, 'kind') === 'CustomResourceDefinition' &&
  groupOf(stringAt(object, 'apiVersion') ?? '') === 'apiextensions.k8s.io';
