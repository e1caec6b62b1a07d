import { defineConfig } from 'vitest/config';

// Suites that need a real kube-apiserver: their own project, so only runs that select them
// pay for starting a control plane (the project's globalSetup runs only when it has files to run).
const realServerSuites = ['test/integration/**/*.test.ts', 'test/contract/kubernetes.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: realServerSuites },
      },
      {
        extends: true,
        test: {
          name: 'kubernetes',
          include: realServerSuites,
          globalSetup: ['test/support/kubernetes-global-setup.ts'],
          // One control plane, two cores: suites on it take turns instead of starving each other.
          fileParallelism: false,
          testTimeout: 120_000,
        },
      },
    ],
  },
});
