/** The checked-in deployment manifests are exactly what `kreconcile deploy` prints, and they are sound. */
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { run } from '../../../app/cli/main.js';
import type { CliIo } from '../../../app/cli/io.js';

const io = (out: string[]): CliIo => ({
  stdout: { write: (text) => { out.push(text); } }, stderr: { write: () => {} }, isTTY: false, env: {},
  readStdin: async () => ({ _tag: 'Text', text: '' }), readFile: async (path) => readFileSync(path, 'utf8'), readFileCapped: async (path) => ({ _tag: 'Text', text: readFileSync(path, 'utf8') }), now: () => new Date(0),
  connect: async () => { throw new Error('offline'); }, version: 'test',
});

describe('examples/deploy', () => {
  it('matches `kreconcile deploy --image ghcr.io/kreconcile/kreconcile:0.1.0` (regenerate it when this fails)', async () => {
    const out: string[] = [];
    expect(await run(['deploy', '--image', 'ghcr.io/kreconcile/kreconcile:0.1.0'], io(out))).toBe(0);
    expect(out.join('')).toBe(readFileSync('examples/deploy/kreconcile.yaml', 'utf8'));
  });

  it('holds the CRD with a status subresource, least-privilege RBAC and a probed, leader-elected Deployment', () => {
    const docs = parseAllDocuments(readFileSync('examples/deploy/kreconcile.yaml', 'utf8')).map((d) => d.toJS() as Record<string, any>);
    const byKind = (kind: string) => docs.filter((d) => d.kind === kind);
    const crd = byKind('CustomResourceDefinition')[0];
    expect(crd?.spec.versions[0].subresources).toEqual({ status: {} });
    expect(crd?.spec.versions[0].additionalPrinterColumns.map((c: { name: string }) => c.name)).toEqual(['Ready', 'Reason', 'Age']);
    const rules = byKind('ClusterRole')[0]?.rules as Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>;
    expect(rules.flatMap((r) => r.verbs)).not.toContain('*');
    expect(rules.find((r) => r.resources.includes('applications/status'))?.verbs).toEqual(expect.arrayContaining(['patch']));
    expect(rules.find((r) => r.resources.includes('leases'))?.apiGroups).toEqual(['coordination.k8s.io']);
    const container = byKind('Deployment')[0]?.spec.template.spec.containers[0];
    expect(container.args).toContain('--leader-elect');
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    expect(container.livenessProbe.httpGet.path).toBe('/healthz');
  });
});
