/** Contract: list with label selectors, in the full Kubernetes syntax. */
import { beforeAll, expect, it } from 'vitest';
import { configMap, expectError, failure, must, unique, type ContractEnv } from './contract-support.js';

export const selectorContract = (env: () => ContractEnv): void => {
  const suite = unique('sel');
  const labelled: Record<string, Record<string, string>> = {
    a: { tier: 'web', 'app.kubernetes.io/name': 'shop', env: 'prod' },
    b: { tier: 'db', 'app.kubernetes.io/name': 'shop', env: 'dev' },
    c: { tier: 'cache', env: 'prod' },
    d: {},
  };

  beforeAll(async () => {
    const { cluster, namespace } = env();
    for (const [name, labels] of Object.entries(labelled)) {
      await must(cluster.create(configMap(namespace, `${suite}-${name}`, {}, { suite, ...labels })));
    }
  });

  const select = async (
    selector: string,
    namespace: string | undefined = env().namespace,
  ): Promise<ReadonlyArray<string>> => {
    const list = await must(
      env().cluster.list({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        labelSelector: `suite=${suite},${selector}`,
        ...(namespace === undefined ? {} : { namespace }),
      }),
    );
    return list.items.map((item) => item.metadata.name.slice(suite.length + 1)).sort();
  };

  it('equality: =, == and !=  (!= also matches objects without the key)', async () => {
    expect(await select('tier=web')).toEqual(['a']);
    expect(await select('tier==web')).toEqual(['a']);
    expect(await select('tier!=web')).toEqual(['b', 'c', 'd']);
  });

  it('sets: in and notin (notin also matches objects without the key), whitespace allowed', async () => {
    expect(await select('tier in (web,db)')).toEqual(['a', 'b']);
    expect(await select('tier notin (web,db)')).toEqual(['c', 'd']);
    expect(await select(' tier in ( web , cache ) ')).toEqual(['a', 'c']);
  });

  it('empty values and numeric comparisons (> and <)', async () => {
    expect(await select('env=')).toEqual([]);
    expect(await select('tier>1')).toEqual([]);
    expect(await select('!env,tier!=')).toEqual(['d']);
  });

  it('existence: key and !key', async () => {
    expect(await select('tier')).toEqual(['a', 'b', 'c']);
    expect(await select('!tier')).toEqual(['d']);
  });

  it('prefixed keys and conjunctions', async () => {
    expect(await select('app.kubernetes.io/name=shop,env=prod')).toEqual(['a']);
    expect(await select('app.kubernetes.io/name,env!=prod')).toEqual(['b']);
  });

  it('a list without namespace spans all namespaces; another namespace has none of these', async () => {
    expect(await select('tier', undefined)).toEqual(['a', 'b', 'c']);
    expect(await select('tier', 'default')).toEqual([]);
  });

  it('a malformed selector answers BadRequest (400)', async () => {
    const { cluster, namespace } = env();
    expectError(
      await failure(cluster.list({ apiVersion: 'v1', kind: 'ConfigMap', namespace, labelSelector: 'tier in (web' })),
      'BadRequest',
      400,
    );
  });
};
