/** The objects of an example snapshot, as a live cluster would serve them. */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { Resource } from '../../../core/internal.js';

export const snapshotObjects = (path: string): ReadonlyArray<Resource> =>
  (parse(readFileSync(path, 'utf8')) as { items: Resource[] }).items;

export const documentsOf = (path: string): ReadonlyArray<Resource> =>
  readFileSync(path, 'utf8')
    .split(/^---$/m)
    .map((text) => parse(text) as Resource | null)
    .filter((d): d is Resource => d !== null);
