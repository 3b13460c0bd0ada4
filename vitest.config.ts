import { defineConfig } from 'vitest/config';

// Four projects. `default` needs only Node and is what `npm test` runs. `vcsim`, `browser` and `central`
// need Debian packages (scripts/install-test-deps) and fail loudly when those are missing;
// `npm run test:full` runs all four.
export default defineConfig({
  test: {
    // Most suites wait on simulated vCenter/ZVM tasks and timers rather than burn CPU, so more
    // workers than cores shortens the run (measured on 2 cores: 167 s -> 66 s for `default`).
    maxWorkers: 4,
    projects: [
      {
        test: {
          name: 'default',
          include: ['test/**/*.test.ts'],
          exclude: ['test/vcsim/**', 'test/conformance/**', 'test/browser/**', 'test/live/**', 'test/central/**'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'vcsim',
          // vcsim and the client-conformance suite (govmomi, pyVmomi) need the same Debian packages.
          include: ['test/vcsim/**/*.test.ts', 'test/conformance/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          // A throwaway PostgreSQL cluster (Debian's postgresql package) and two HTTP instances.
          name: 'central',
          include: ['test/central/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
      {
        test: {
          name: 'live',
          include: ['test/live/**/*.test.ts'],
          testTimeout: 120_000,
        },
      },
    ],
  },
});
