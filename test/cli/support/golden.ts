/** Golden files: compared byte for byte; `UPDATE_GOLDEN=1` rewrites them (then review the diff). */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { expect } from 'vitest';

const UPDATE = process.env.UPDATE_GOLDEN === '1';

export const expectGolden = (path: string, actual: string): void => {
  if (UPDATE) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
  }
  if (!existsSync(path))
    throw new Error(`missing golden file ${path}: run UPDATE_GOLDEN=1 npx vitest run test/cli and review it`);
  expect(actual).toBe(readFileSync(path, 'utf8'));
};
