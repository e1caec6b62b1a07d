/** The memory cluster as a Kubernetes API endpoint on loopback (HTTP → the memory cluster's port). */
export { serveMemoryCluster, type ServeOptions, type ServedCluster, type ServableCluster } from './http-server.js';
