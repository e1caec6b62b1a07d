/**
 * The checked-in deployment manifests (examples/deploy: the manifests and the kustomize base over
 * them) are exactly what `kreconcile deploy` prints, and they are sound. UPDATE_GOLDEN=1 rewrites them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { run } from '../../../app/cli/main.js';
import type { CliIo } from '../../../app/cli/io.js';

const VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

const io = (out: string[]): CliIo => ({
  stdout: {
    write: (text) => {
      out.push(text);
    },
  },
  stderr: { write: () => {} },
  isTTY: false,
  env: {},
  readStdin: async () => ({ _tag: 'Text', text: '' }),
  readFile: async (path) => readFileSync(path, 'utf8'),
  readFileCapped: async (path) => ({ _tag: 'Text', text: readFileSync(path, 'utf8') }),
  now: () => new Date(0),
  connect: async () => {
    throw new Error('offline');
  },
  connectWritable: async () => {
    throw new Error('offline');
  },
  writeFile: async () => {
    throw new Error('read-only');
  },
  version: VERSION,
});

describe('examples/deploy', () => {
  it('matches `kreconcile deploy` (regenerate with UPDATE_GOLDEN=1 when this fails)', async () => {
    const out: string[] = [];
    expect(await run(['deploy'], io(out))).toBe(0);
    if (process.env.UPDATE_GOLDEN === '1') writeFileSync('examples/deploy/kreconcile.yaml', out.join(''));
    expect(out.join('')).toBe(readFileSync('examples/deploy/kreconcile.yaml', 'utf8'));
  });

  it('names by default the image the Dockerfile builds for this version, which the kustomize base lets overlays replace', () => {
    const docs = parseAllDocuments(readFileSync('examples/deploy/kreconcile.yaml', 'utf8')).map(
      (d) => d.toJS() as Record<string, any>,
    );
    const images = docs
      .filter((d) => d.kind === 'Deployment')
      .flatMap((d) => d.spec.template.spec.containers.map((c: { image: string }) => c.image));
    expect(images).toEqual([`kreconcile:${VERSION}`]);
    const kustomization = parseAllDocuments(readFileSync('examples/deploy/kustomization.yaml', 'utf8'))[0]?.toJS() as {
      kind: string;
      resources: string[];
    };
    expect(kustomization.kind).toBe('Kustomization');
    expect(kustomization.resources).toEqual(['kreconcile.yaml']);
  });

  it("runs the image's entrypoint with `run` as non-root on a read-only root filesystem", () => {
    const docs = parseAllDocuments(readFileSync('examples/deploy/kreconcile.yaml', 'utf8')).map(
      (d) => d.toJS() as Record<string, any>,
    );
    const container = docs.find((d) => d.kind === 'Deployment')?.spec.template.spec.containers[0];
    expect(container.command).toBeUndefined();
    expect(container.args[0]).toBe('run');
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
    });
  });

  it('holds the CRD with a status subresource, least-privilege RBAC and a probed, leader-elected Deployment', () => {
    const docs = parseAllDocuments(readFileSync('examples/deploy/kreconcile.yaml', 'utf8')).map(
      (d) => d.toJS() as Record<string, any>,
    );
    const byKind = (kind: string) => docs.filter((d) => d.kind === kind);
    const crd = byKind('CustomResourceDefinition')[0];
    expect(crd?.spec.versions[0].subresources).toEqual({ status: {} });
    expect(crd?.spec.versions[0].additionalPrinterColumns.map((c: { name: string }) => c.name)).toEqual([
      'Ready',
      'Reason',
      'Age',
    ]);
    type Rule = { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] };
    const rules = [...byKind('ClusterRole'), ...byKind('Role')].flatMap((role) => role.rules as Rule[]);
    expect(rules.flatMap((r) => [...r.verbs, ...r.resources, ...r.apiGroups])).not.toContain('*');
    expect(rules.find((r) => r.resources.includes('applications/status'))?.verbs).toEqual(
      expect.arrayContaining(['patch']),
    );
    // The Lease only in the operator's namespace, updated only by name; no cluster-wide Secrets.
    expect(
      byKind('ClusterRole')
        .flatMap((role) => role.rules as Rule[])
        .filter((r) => r.resources.includes('leases') || r.resources.includes('secrets')),
    ).toEqual([]);
    expect(byKind('Role')[0]?.rules).toContainEqual({
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      verbs: ['get', 'update'],
      resourceNames: ['kreconcile-leader'],
    });
    const container = byKind('Deployment')[0]?.spec.template.spec.containers[0];
    expect(container.args).toContain('--leader-elect');
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    expect(container.livenessProbe.httpGet.path).toBe('/healthz');
  });
});
