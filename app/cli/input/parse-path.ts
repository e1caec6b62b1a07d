/** Reads back the human paths the core reports (`spec.manifest[0].metadata.labels["a/b"]`) as path steps. */
import type { Path, PathStep } from '../../../core/internal.js';

const TOKEN = /^(?:\.?([A-Za-z_$][A-Za-z0-9_$-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\])/;

/** The steps of a `showPath` string; stops at the first part it cannot read (locations stay approximate then). */
export const parsePath = (text: string): Path => {
  const steps: PathStep[] = [];
  let rest = text;
  for (let match = TOKEN.exec(rest); match !== null && rest !== ''; match = TOKEN.exec(rest)) {
    const [whole, name, index, quoted] = match;
    if (name !== undefined) steps.push(name);
    else if (index !== undefined) steps.push(Number(index));
    else if (quoted !== undefined) steps.push(String(JSON.parse(quoted)));
    rest = rest.slice(whole.length);
  }
  return steps;
};
