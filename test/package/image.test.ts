/**
 * The Dockerfile, read (no container builder runs here): it builds on the Node the tests run on,
 * copies everything the package build needs and nothing .dockerignore hides, runs as a numeric
 * non-root user, and starts the package's bin. What the image then holds is run by
 * pack-install.test.ts (its install stage, without a container).
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { execForm, instructions } from './dockerfile.js';

type Manifest = {
  version: string;
  bin: Record<string, string>;
  files: string[];
  devDependencies: Record<string, string>;
};
const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as Manifest;
const all = instructions();
const lastStage = Math.max(...all.map((i) => i.stage));

/** The base image, with the default of its build argument filled in. */
const bases = (): ReadonlyArray<string> => {
  const defaults = new Map(
    all.filter((i) => i.keyword === 'ARG' && i.stage === -1).map((i) => i.args.split('=') as [string, string]),
  );
  return all
    .filter((i) => i.keyword === 'FROM')
    .map((i) => (i.args.split(/\s+/)[0] ?? '').replace(/^\$\{(\w+)\}$/, (_, name: string) => defaults.get(name) ?? ''));
};

/** Build-context sources of COPY instructions (not --from=stage copies). */
const contextSources = (): ReadonlyArray<string> =>
  all
    .filter((i) => i.keyword === 'COPY' && !i.args.includes('--from='))
    .flatMap((i) =>
      i.args
        .split(/\s+/)
        .filter((word) => !word.startsWith('--'))
        .slice(0, -1),
    );

/** Whether .dockerignore (`**` then `!path` exceptions) lets `path` into the build context. */
const allowed = (path: string): boolean => {
  const rules = readFileSync('.dockerignore', 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  expect(rules[0]).toBe('**');
  return rules
    .slice(1)
    .some(
      (rule) => rule.startsWith('!') && (path === rule.slice(1).replace(/\/$/, '') || path.startsWith(rule.slice(1))),
    );
};

describe('the Dockerfile', () => {
  it('builds every stage on the Node the repository pins and tests with', () => {
    const pinned = manifest.devDependencies.node?.replace(/^\D*/, '');
    expect(bases().length).toBe(3);
    for (const base of bases())
      expect(base).toMatch(new RegExp(`^node:${pinned?.replace(/\./g, '\\.')}-slim(@sha256:[0-9a-f]{64})?$`));
  });

  it('copies what the package build needs, each allowed by .dockerignore', () => {
    const sources = contextSources();
    for (const source of sources) {
      expect(existsSync(source), source).toBe(true);
      expect(allowed(source), `${source} is hidden by .dockerignore`).toBe(true);
    }
    const buildInputs = (JSON.parse(readFileSync('tsconfig.build.json', 'utf8')) as { include: string[] }).include;
    // `!pattern` entries exclude from what is shipped: nothing to copy for them.
    const shipped = manifest.files.filter((file) => file !== 'dist' && !file.startsWith('!'));
    for (const needed of [
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'tsconfig.build.json',
      'tools/package',
      ...buildInputs,
      ...shipped,
    ]) {
      expect(sources, needed).toContain(needed);
    }
  });

  it('runs the package bin as a numeric non-root user, serving the port the Deployment probes', () => {
    const user = all.filter((i) => i.stage === lastStage && i.keyword === 'USER').at(-1)?.args ?? '';
    expect(user).toMatch(/^[1-9]\d*(:\d+)?$/);
    expect(execForm(all, 'ENTRYPOINT')).toEqual([
      'node',
      `/opt/kreconcile/${manifest.bin.kreconcile?.replace(/^\.\//, '')}`,
    ]);
    expect(execForm(all, 'CMD')).toEqual(['run', '--listen', ':8080']);
    expect(all.some((i) => i.stage === lastStage && i.keyword === 'RUN' && /npm (ci|install)/.test(i.args))).toBe(
      false,
    );
  });
});
