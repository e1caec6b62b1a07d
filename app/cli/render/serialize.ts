/** Serialising documents for `-o json` and `-o yaml`: stable, diff-friendly, never line-folded. */
import { stringify } from 'yaml';

export type DataFormat = 'json' | 'yaml';

export const serialize = (value: unknown, format: DataFormat): string =>
  format === 'json'
    ? `${JSON.stringify(value, null, 2)}\n`
    : // lineWidth 0: long strings (messages, images) stay on one line, so diffs of outputs stay readable.
      stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });
