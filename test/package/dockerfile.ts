/** The parts of the repository's Dockerfile the package tests check (no container builder runs here). */
import { readFileSync } from 'node:fs';

export type Instruction = { readonly keyword: string; readonly args: string; readonly stage: number };

/** Instructions in order (continuation lines joined, comments dropped), with the index of their stage. */
export const instructions = (path = 'Dockerfile'): ReadonlyArray<Instruction> => {
  const logical = readFileSync(path, 'utf8')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  let stage = -1;
  return logical.map((line) => {
    const [keyword = '', ...rest] = line.split(/\s+/);
    if (keyword.toUpperCase() === 'FROM') stage += 1;
    return { keyword: keyword.toUpperCase(), args: rest.join(' '), stage };
  });
};

/** The JSON (exec) form of ENTRYPOINT or CMD in the last stage. */
export const execForm = (all: ReadonlyArray<Instruction>, keyword: 'ENTRYPOINT' | 'CMD'): ReadonlyArray<string> => {
  const last = Math.max(...all.map((i) => i.stage));
  const found = all.filter((i) => i.stage === last && i.keyword === keyword).at(-1);
  if (found === undefined) throw new Error(`no ${keyword} in the runtime stage`);
  return JSON.parse(found.args) as string[];
};
