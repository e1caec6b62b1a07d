/**
 * Identities on the test API server beyond the admin: ServiceAccount tokens from the TokenRequest
 * API, kubeconfigs for them, and SelfSubjectAccessReviews asked as them. Raw HTTPS with node:https
 * because the Cluster port has no subresource create (tests do not import client-node either).
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { parse, stringify } from 'yaml';
import * as E from 'fp-ts/lib/Either.js';
import { createKubernetesCluster, type KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { operatorRbac, type RbacOptions } from '../../app/manifests/rbac.js';
import { showClusterError, type Cluster, type Resource } from '../../core/internal.js';

/** How to reach the server as someone: the CA, and a client certificate or a bearer token. */
export type ApiIdentity = {
  readonly server: string;
  readonly caData: string;
  readonly certData?: string;
  readonly keyData?: string;
  readonly token?: string;
};

type KubeconfigShape = {
  clusters: Array<{ cluster: { server: string; 'certificate-authority-data': string } }>;
  users: Array<{ user: { 'client-certificate-data'?: string; 'client-key-data'?: string; token?: string } }>;
};

/** The admin identity of a kubeconfig file written by tools/envtest (base64 data fields). */
export const adminIdentity = (kubeconfigPath: string): ApiIdentity => {
  const config = parse(readFileSync(kubeconfigPath, 'utf8')) as KubeconfigShape;
  const cluster = config.clusters[0]?.cluster;
  const user = config.users[0]?.user;
  if (cluster === undefined || user === undefined) throw new Error(`${kubeconfigPath}: no cluster or user`);
  return {
    server: cluster.server,
    caData: cluster['certificate-authority-data'],
    ...(user['client-certificate-data'] === undefined ? {} : { certData: user['client-certificate-data'] }),
    ...(user['client-key-data'] === undefined ? {} : { keyData: user['client-key-data'] }),
    ...(user.token === undefined ? {} : { token: user.token }),
  };
};

const pem = (base64: string | undefined): string | undefined =>
  base64 === undefined ? undefined : Buffer.from(base64, 'base64').toString('utf8');

/** POSTs JSON as `identity`; resolves with the status code and the parsed answer. */
export const postJson = (
  identity: ApiIdentity,
  path: string,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): Promise<{ status: number; body: Record<string, unknown> }> =>
  new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = request(
      new URL(path, identity.server),
      {
        method: 'POST',
        agent: false,
        timeout: 10_000,
        ca: pem(identity.caData),
        cert: pem(identity.certData),
        key: pem(identity.keyData),
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'content-length': Buffer.byteLength(payload),
          ...(identity.token === undefined ? {} : { authorization: `Bearer ${identity.token}` }),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`POST ${path} timed out`)));
    req.on('error', reject);
    req.end(payload);
  });

/** A token for an existing ServiceAccount (TokenRequest API), valid for an hour. */
export const serviceAccountToken = async (admin: ApiIdentity, namespace: string, name: string): Promise<string> => {
  const answer = await postJson(admin, `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds: 3600 },
  });
  const token = (answer.body.status as { token?: unknown } | undefined)?.token;
  if (answer.status !== 201 || typeof token !== 'string')
    throw new Error(`TokenRequest for ${namespace}/${name}: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
  return token;
};

/** A Cluster that authenticates with `token` (a unique user name: client-node caches credentials by it). */
export const clusterWithToken = (admin: ApiIdentity, token: string, user: string): KubernetesCluster =>
  createKubernetesCluster({
    kubeconfigYaml: stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': user,
      clusters: [{ name: 'test', cluster: { server: admin.server, 'certificate-authority-data': admin.caData } }],
      users: [{ name: user, user: { token } }],
      contexts: [{ name: user, context: { cluster: 'test', user } }],
    }),
  });

/** What a SelfSubjectAccessReview asks: a verb on a resource, in a namespace (none = cluster-wide), by name. */
export type AccessQuestion = {
  readonly verb: string;
  readonly resource: string;
  readonly group?: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
};

/** Whether `identity` may do it, as the API server's authorizer answers. */
export const canI = async (identity: ApiIdentity, question: AccessQuestion): Promise<boolean> => {
  const answer = await postJson(identity, '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    spec: { resourceAttributes: { group: question.group ?? '', ...question } },
  });
  const allowed = (answer.body.status as { allowed?: unknown } | undefined)?.allowed;
  if (answer.status !== 201 || typeof allowed !== 'boolean')
    throw new Error(`SelfSubjectAccessReview: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
  return allowed;
};

/** Creates each object, replacing one that exists (RBAC objects of an earlier run or file). */
export const applyAll = async (cluster: Cluster, objects: ReadonlyArray<Resource>): Promise<void> => {
  for (const object of objects) {
    const created = await cluster.create(object)();
    if (E.isRight(created)) continue;
    if (created.left._tag !== 'AlreadyExists')
      throw new Error(`creating ${object.kind} ${object.metadata.name}: ${showClusterError(created.left)}`);
    const ref = {
      apiVersion: object.apiVersion,
      kind: object.kind,
      name: object.metadata.name,
      ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}),
    };
    const current = await cluster.get(ref)();
    const resourceVersion =
      E.isRight(current) && current.right._tag === 'Some' ? current.right.value.metadata.resourceVersion : undefined;
    const updated = await cluster.update({
      ...object,
      metadata: { ...object.metadata, ...(resourceVersion ? { resourceVersion } : {}) },
    })();
    if (E.isLeft(updated))
      throw new Error(`replacing ${object.kind} ${object.metadata.name}: ${showClusterError(updated.left)}`);
  }
};

/**
 * Installs the RBAC `kreconcile rbac` prints for `options` and returns the operator's ServiceAccount
 * token as an identity (for SelfSubjectAccessReviews) and as a Cluster (to run the operator with).
 */
export const installOperator = async (
  admin: Cluster,
  adminId: ApiIdentity,
  options: RbacOptions & { readonly name: string },
): Promise<{ readonly identity: ApiIdentity; readonly cluster: KubernetesCluster }> => {
  await applyAll(admin, operatorRbac(options));
  const token = await serviceAccountToken(adminId, options.namespace, options.name);
  return {
    identity: { server: adminId.server, caData: adminId.caData, token },
    cluster: clusterWithToken(adminId, token, options.name),
  };
};
