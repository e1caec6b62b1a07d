/**
 * Impersonation: a Cluster whose every request (reads, writes, watches) the API server
 * authorizes as a tenant's ServiceAccount instead of as the operator, so the tenant's own RBAC
 * decides what an Application may touch (Flux's `spec.serviceAccountName`).
 *
 * Only `Impersonate-User: system:serviceaccount:<ns>:<name>` is sent. For a ServiceAccount user
 * the API server adds the groups itself (`system:serviceaccounts`, `system:serviceaccounts:<ns>`,
 * `system:authenticated`) when no `Impersonate-Group` is given, which also spares the operator the
 * `impersonate groups` right; client-node could not send them anyway (fetch joins repeated header
 * values with commas, which the server reads as ONE group name: kubernetes-client/javascript#2474).
 */
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';

/** A ServiceAccount the API server acts as. Names are validated by the caller (they come from tenants). */
export type ServiceAccountIdentity = { readonly namespace: string; readonly name: string };

/** The username the API server gives a ServiceAccount's tokens (and expects in `Impersonate-User`). */
export const serviceAccountUsername = (account: ServiceAccountIdentity): string =>
  `system:serviceaccount:${account.namespace}:${account.name}`;

/**
 * A copy of `base` whose current user acts as `username`: same server, TLS and credentials, so
 * the generated APIs, our REST client and `Watch` all send `Impersonate-User` (client-node adds
 * it from the user's `impersonateUser`, the kubeconfig `as:` field). An `as:` already in `base`
 * is replaced: impersonation does not nest, the credentials' own identity needs the right.
 */
export const impersonatingKubeConfig = (base: KubeConfig, username: string): KubeConfig => {
  const current = base.getCurrentUser();
  const derived = new KubeConfig();
  derived.loadFromOptions({
    clusters: base.getClusters(),
    // The user keeps its name: exec/OIDC credential caches are keyed by it, and the credentials are the same.
    users: base.getUsers().map((user) => (user.name === current?.name ? { ...user, impersonateUser: username } : user)),
    contexts: base.getContexts(),
    currentContext: base.getCurrentContext(),
  });
  return derived;
};

/**
 * A bounded memo: at most `capacity` values, the least recently used dropped first. Clients
 * hold no connections of their own (each request gets its dispatcher), so dropping one is free;
 * the bound keeps thousands of tenants from growing the operator's heap without limit.
 */
export const boundedMemo = <A>(capacity: number, make: (key: string) => A): ((key: string) => A) => {
  const entries = new Map<string, A>();
  return (key) => {
    const found = entries.get(key);
    if (found !== undefined) {
      // Map keeps insertion order: re-inserting marks the entry most recently used.
      entries.delete(key);
      entries.set(key, found);
      return found;
    }
    const made = make(key);
    entries.set(key, made);
    const oldest = entries.keys().next();
    if (entries.size > capacity && oldest.done !== true) entries.delete(oldest.value);
    return made;
  };
};
