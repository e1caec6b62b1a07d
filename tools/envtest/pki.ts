/**
 * Certificates and keys for a loopback control plane, made with the openssl CLI: a CA, the
 * apiserver's serving cert (127.0.0.1/localhost), an admin client cert (O=system:masters) and
 * the service-account signing key pair.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type Pki = {
  readonly caCert: string;
  readonly caKey: string;
  readonly servingCert: string;
  readonly servingKey: string;
  readonly adminCert: string;
  readonly adminKey: string;
  readonly serviceAccountKey: string;
  readonly serviceAccountPub: string;
};

const openssl = async (dir: string, args: ReadonlyArray<string>): Promise<void> => {
  try {
    await run('openssl', [...args], { cwd: dir });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`openssl ${args[0] ?? ''} failed: ${stderr || String(error)}`);
  }
};

// OpenSSL 3 `x509 -req` does not copy CSR extensions, so SANs and usages come from -extfile.
const signed = async (dir: string, name: string, subject: string, extensions: string): Promise<void> => {
  await openssl(dir, [
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
    '-subj',
    subject,
  ]);
  await writeFile(join(dir, `${name}.ext`), extensions);
  await openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    // A random serial per cert: -CAcreateserial would race on ca.srl when certs are signed in parallel.
    '-set_serial',
    `0x${randomBytes(16).toString('hex')}`,
    '-days',
    '365',
    '-extfile',
    `${name}.ext`,
    '-out',
    `${name}.crt`,
  ]);
};

/** Writes the PKI into `dir` and returns the file paths. */
export const generatePki = async (dir: string): Promise<Pki> => {
  await openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '365',
    '-subj',
    '/CN=kreconcile-envtest-ca',
  ]);
  await Promise.all([
    signed(
      dir,
      'apiserver',
      '/CN=kube-apiserver',
      'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,IP:10.0.0.1\n' +
        'extendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n',
    ),
    signed(
      dir,
      'admin',
      '/O=system:masters/CN=kreconcile-admin',
      'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n',
    ),
    openssl(dir, ['genrsa', '-out', 'sa.key', '2048']),
  ]);
  await openssl(dir, ['rsa', '-in', 'sa.key', '-pubout', '-out', 'sa.pub']);
  const at = (file: string): string => join(dir, file);
  return {
    caCert: at('ca.crt'),
    caKey: at('ca.key'),
    servingCert: at('apiserver.crt'),
    servingKey: at('apiserver.key'),
    adminCert: at('admin.crt'),
    adminKey: at('admin.key'),
    serviceAccountKey: at('sa.key'),
    serviceAccountPub: at('sa.pub'),
  };
};
