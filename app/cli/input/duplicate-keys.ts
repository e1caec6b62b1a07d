/**
 * Duplicate map keys found in one pass with a set per map. The YAML library's own check
 * (`uniqueKeys`) compares every key with every earlier one: a map of 8 000 keys took 5.6 s of a
 * hostile `validate`. The error is the library's: `DUPLICATE_KEY` at the repeated key.
 */
import { isMap, isScalar, visit, YAMLParseError, type Document } from 'yaml';

const MERGE_KEY = '<<';

export const duplicateKeyErrors = (document: Document.Parsed): ReadonlyArray<YAMLParseError> => {
  const errors: YAMLParseError[] = [];
  visit(document, {
    Map: (_, map) => {
      if (!isMap(map)) return;
      const seen = new Set<string>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        const key = `${typeof pair.key.value}:${String(pair.key.value)}`;
        if (String(pair.key.value) === MERGE_KEY) continue;
        const start = pair.key.range?.[0] ?? 0;
        if (seen.has(key))
          errors.push(new YAMLParseError([start, start + 1], 'DUPLICATE_KEY', 'Map keys must be unique'));
        seen.add(key);
      }
    },
  });
  return errors;
};
