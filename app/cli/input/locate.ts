/** Maps a JSON path inside a parsed YAML document to the offset of the key or item it names. */
import { isAlias, isMap, isScalar, isSeq, type Document } from 'yaml';
import type { Path } from '../../../core/internal.js';

/**
 * Offset of `path` in `document`: the key of the last map entry (or the list item) found along it.
 * A path that leaves the document (a missing field) stops at its nearest existing ancestor,
 * which is where the user has to add it.
 */
export const offsetOf = (document: Document.Parsed, path: Path): number => {
  let node: unknown = document.contents;
  let offset = document.contents?.range[0] ?? document.range[0];
  for (const step of path) {
    if (isAlias(node)) node = node.resolve(document);
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(step));
      if (pair === undefined) break;
      offset = isScalar(pair.key) ? (pair.key.range?.[0] ?? offset) : offset;
      node = pair.value;
    } else if (isSeq(node) && typeof step === 'number') {
      const item: unknown = node.items[step];
      if (item === undefined) break;
      const range = typeof item === 'object' && item !== null && 'range' in item ? item.range : undefined;
      offset = Array.isArray(range) && typeof range[0] === 'number' ? range[0] : offset;
      node = item;
    } else break;
  }
  return offset;
};
