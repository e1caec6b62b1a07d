/**
 * Numeric flags checked where commander parses them: `--workers abc` (or `2.5`, `0`, `1e3`) is one
 * line naming the flag and the value (`error: option '--workers <n>' argument 'abc' is invalid.
 * expected …`), exit 1, before anything starts. The value is kept as written (the commands convert it).
 */
import { InvalidArgumentError } from 'commander';

const WHOLE = /^\d+$/;
const DECIMAL = /^\d+(\.\d+)?$/;

/** A whole number from `min` to `max` (inclusive), written in digits only. */
export const wholeNumber =
  (min: number, max = Number.MAX_SAFE_INTEGER) =>
  (text: string): string => {
    const value = Number(text);
    if (!WHOLE.test(text) || value < min || value > max)
      throw new InvalidArgumentError(
        `expected a whole number ${max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`}`,
      );
    return text;
  };

/** A number above 0 in plain decimal notation (`50`, `2.5`). */
export const positiveNumber = (text: string): string => {
  if (!DECIMAL.test(text) || !(Number(text) > 0))
    throw new InvalidArgumentError('expected a number above 0 in decimal notation, e.g. 50 or 2.5');
  return text;
};
