/**
 * Production defaults for embedders: a `desired` that throws, returns a cyclic, too deep or
 * oversized value, or takes too long ends as an issue on the object (Stalled InvalidSpec), never
 * as a crash of the reconcile; and the default logger writes the reconcile's defects at error.
 */
import * as E from 'fp-ts/lib/Either.js';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ManualClock, createMemoryCluster, flushMicrotasks } from '../../../adapters/memory/index.js';
import { createDefaultLogger } from '../../../app/runtime/default-logger.js';
import { DEFAULT_DESIRED_LIMITS, desiredProblem } from '../../../app/runtime/desired-guard.js';
import { startEmbeddedOperator, type Operator } from '../../../app/runtime/index.js';
import { primaryOf, type DesiredState } from '../../../app/runtime/primary.js';
import { conditionOf, type ApplicationStatus, type Resource } from '../../../core/internal.js';

const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } };

const cyclic = (): DesiredState => {
  const child: Record<string, unknown> = { ...configMap, data: {} };
  (child.data as Record<string, unknown>).self = child;
  return { manifest: [child] };
};

const greeting = (mode: string): Resource => ({
  apiVersion: 'example.kreconcile.io/v1',
  kind: 'Greeting',
  metadata: { name: 'g', namespace: 'default', uid: 'u', generation: 1 },
  spec: { message: mode },
});

const messageOf = (decoded: E.Either<ReadonlyArray<{ message: string }>, unknown>): string =>
  E.isLeft(decoded) ? decoded.left.map((issue) => issue.message).join('; ') : 'decoded';

describe('desiredProblem', () => {
  it('accepts shared (acyclic) references and values within the bounds', () => {
    const shared = { a: '1' };
    expect(
      desiredProblem({
        manifest: [
          { ...configMap, data: shared },
          { ...configMap, data: shared },
        ],
      }),
    ).toBe(undefined);
  });

  it('names a cycle, too deep a value and too large a value with where it was found', () => {
    expect(desiredProblem(cyclic())).toBe('is cyclic: desired.manifest[0].data.self refers back to one of its parents');
    let deep: unknown = 'leaf';
    for (let i = 0; i < 150; i++) deep = { next: deep };
    expect(desiredProblem({ manifest: [deep] })).toMatch(
      /^nests deeper than 100 levels at desired\.manifest\[0\](\.next)+$/,
    );
    const big = { manifest: [{ ...configMap, data: { a: 'x'.repeat(2_000) } }] };
    expect(desiredProblem(big, { ...DEFAULT_DESIRED_LIMITS, maxBytes: 1_000 })).toBe(
      'is larger than 1000 bytes as JSON (found at desired.manifest[0].data.a): split the object or return less',
    );
  });
});

describe('primaryOf with the guard', () => {
  let now = 0;
  const primary = primaryOf(
    {
      apiVersion: 'example.kreconcile.io/v1',
      kind: 'Greeting',
      desired: (g) => {
        const mode = (g.spec as { message: string }).message;
        if (mode === 'cyclic') return cyclic();
        if (mode === 'slow') now += 1_500;
        if (mode === 'getter')
          return {
            manifest: [
              Object.defineProperty({ ...configMap }, 'data', {
                enumerable: true,
                get: () => {
                  throw new Error('lazy data failed');
                },
              }),
            ],
          };
        return { manifest: [configMap] };
      },
    },
    { monotonic: () => now },
  );

  it('turns a cyclic value, a slow call and a throwing getter into issues, never a throw', () => {
    expect(messageOf(primary.decode(greeting('cyclic')))).toBe(
      'desired(Greeting) is cyclic: desired.manifest[0].data.self refers back to one of its parents',
    );
    expect(messageOf(primary.decode(greeting('slow')))).toBe(
      'desired(Greeting) took 1500 ms, more than 1000 ms: it blocks the whole operator while it runs (leases, watches); make it faster or raise desiredLimits.maxMs',
    );
    expect(messageOf(primary.decode(greeting('getter')))).toBe(
      'desired(Greeting) returned a value that cannot be read: lazy data failed',
    );
    expect(messageOf(primary.decode(greeting('fine')))).toBe('decoded');
  });
});

describe('the default logger', () => {
  it('writes JSON lines at and above its level', () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = createDefaultLogger({ level: 'warn', destination });
    logger.info({}, 'not written');
    logger.error({ key: 'default/g', err: 'RangeError' }, 'reconcile crashed (defect); backing off');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({
      level: 50,
      component: 'kreconcile',
      key: 'default/g',
      msg: 'reconcile crashed (defect); backing off',
    });
  });
});

describe('an embedded operator whose desired returns a cyclic value', () => {
  let operator: Operator | undefined;
  afterEach(async () => {
    await operator?.stop(1_000);
  });

  it('marks the object Stalled with the reason instead of looping silently', async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock, workloads: true });
    const crd = parse(
      readFileSync(new URL('../../../examples/embedded-operator/crd.yaml', import.meta.url), 'utf8'),
    ) as Resource;
    expect((await cluster.create(crd)())._tag).toBe('Right');
    await cluster.settle();
    await clock.advance(1_000);
    operator = await startEmbeddedOperator({
      cluster,
      clock,
      random: () => 0.5,
      logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
      reconciler: { apiVersion: 'example.kreconcile.io/v1', kind: 'Greeting', desired: () => cyclic() },
    });
    expect(
      (await cluster.create({ ...greeting('cyclic'), metadata: { name: 'g', namespace: 'default' } })())._tag,
    ).toBe('Right');
    const stalled = () =>
      conditionOf(
        (cluster.objects().find((o) => o.kind === 'Greeting')?.status as ApplicationStatus | undefined)?.conditions,
        'Stalled',
      );
    for (let t = 0; t < 30_000 && stalled()?.status !== 'True'; t += 100) {
      await flushMicrotasks();
      await clock.advance(100);
    }
    expect(stalled()).toMatchObject({ status: 'True', reason: 'InvalidSpec' });
    expect(stalled()?.message).toContain('desired(Greeting) is cyclic: desired.manifest[0].data.self');
  });
});
