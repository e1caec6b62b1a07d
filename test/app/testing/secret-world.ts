/**
 * The world of examples/kit/secret-copier.mjs: Secrets in `kit-source` to copy into `team-a`
 * and `team-b`, and foreign Secrets already there under the same names. The invariant: every
 * foreign Secret is untouched, every other copy exists with its source's data. Reports never
 * show a Secret's value, only which Secret is wrong and how.
 */
import fc from 'fast-check';
import * as t from 'io-ts';
import type { ConvergenceContext, FaultProfile } from '../../../app/testing/index.js';

export type SecretWorld = {
  readonly sources: ReadonlyArray<{
    readonly name: string;
    readonly targets: ReadonlyArray<string>;
    readonly version: number;
  }>;
  readonly foreign: ReadonlyArray<{ readonly namespace: string; readonly name: string }>;
};

const NAMES = ['db', 'api', 'tls'];
const TARGETS = ['team-a', 'team-b'];

export const secretWorld: fc.Arbitrary<SecretWorld> = fc.record({
  sources: fc.uniqueArray(
    fc.record({
      name: fc.constantFrom(...NAMES),
      targets: fc.subarray(TARGETS, { minLength: 1 }),
      version: fc.integer({ min: 1, max: 3 }),
    }),
    { minLength: 1, maxLength: 3, selector: (s) => s.name },
  ),
  foreign: fc.uniqueArray(fc.record({ namespace: fc.constantFrom(...TARGETS), name: fc.constantFrom(...NAMES) }), {
    maxLength: 3,
    selector: (f) => `${f.namespace}/${f.name}`,
  }),
});

const base64 = (text: string): string => Buffer.from(text).toString('base64');
const FOREIGN_VALUE = base64('owned by another team');

export const secretSetup = async ({ api, world }: ConvergenceContext<SecretWorld>): Promise<void> => {
  for (const name of ['kit-source', ...TARGETS])
    await api.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  for (const f of world.foreign)
    await api.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: f.name, namespace: f.namespace },
      data: { password: FOREIGN_VALUE },
    });
  for (const s of world.sources)
    await api.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: s.name, namespace: 'kit-source', annotations: { 'example.dev/copy-to': s.targets.join(',') } },
      data: { password: base64(`generated password ${s.version}`) },
    });
};

const StoredSecret = t.intersection([
  t.type({ metadata: t.type({ name: t.string, namespace: t.string }) }),
  t.partial({ data: t.record(t.string, t.string) }),
]);

/** What is wrong with `team/name`, or undefined: a foreign Secret keeps its data; a copy has its source's. */
const problemOf = (
  world: SecretWorld,
  secrets: ReadonlyArray<t.TypeOf<typeof StoredSecret>>,
  namespace: string,
  name: string,
  source?: SecretWorld['sources'][number],
): string | undefined => {
  const stored = secrets.find((s) => s.metadata.namespace === namespace && s.metadata.name === name);
  const foreign = world.foreign.some((f) => f.namespace === namespace && f.name === name);
  if (foreign)
    return stored?.data?.password === FOREIGN_VALUE
      ? undefined
      : `${namespace}/${name}: a foreign Secret was overwritten`;
  if (source === undefined) return undefined;
  if (stored === undefined) return `${namespace}/${name}: the copy of kit-source/${name} is missing`;
  return stored.data?.password === base64(`generated password ${source.version}`)
    ? undefined
    : `${namespace}/${name}: the copy differs from kit-source/${name}`;
};

export const secretsConverged = async ({ cluster, world }: ConvergenceContext<SecretWorld>): Promise<true | string> => {
  const secrets = cluster
    .objects()
    .filter((o) => o.kind === 'Secret')
    .filter((o) => StoredSecret.is(o));
  const problems = TARGETS.flatMap((namespace) =>
    NAMES.map((name) =>
      problemOf(
        world,
        secrets.filter((s) => StoredSecret.is(s)),
        namespace,
        name,
        world.sources.find((s) => s.name === name && s.targets.includes(namespace)),
      ),
    ),
  ).filter((p) => p !== undefined);
  return problems.length === 0 ? true : problems.join('; ');
};

/** A transient 500 on reads of Secrets, as an overloaded etcd answers. */
export const flakySecretReads: FaultProfile = {
  errors: [
    {
      rate: 0.25,
      tag: 'Internal',
      code: 500,
      verbs: ['get'],
      kinds: ['Secret'],
      message: 'etcdserver: request timed out',
    },
  ],
};
