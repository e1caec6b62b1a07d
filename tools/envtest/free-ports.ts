/** Free loopback TCP ports for the test control plane (the kernel picks them; nothing is hard-coded). */
import { createServer, type Server } from 'node:net';

const listen = (server: Server): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });

const close = (server: Server): Promise<void> => new Promise((resolve) => server.close(() => resolve()));

/**
 * `count` distinct free ports. All listeners are held open until every port is known, so the
 * kernel cannot hand the same port out twice; a small race with other programs remains (as in envtest).
 */
export const freePorts = async (count: number): Promise<ReadonlyArray<number>> => {
  const servers = Array.from({ length: count }, () => createServer());
  try {
    return await Promise.all(servers.map(listen));
  } finally {
    await Promise.all(servers.map(close));
  }
};
