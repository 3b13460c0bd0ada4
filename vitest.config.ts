import { defineConfig } from 'vitest/config';

// Projects. `default` needs only Node and is what `npm test` runs. `package` (the packed tarball
// installed and run through npx) needs only Node too but spends more CPU than any default file.
// `vcsim`, `browser` and `central` need Debian packages (scripts/install-test-deps) and fail
// loudly when those are missing; `npm run test:full` runs all five.
const PROCESS_TESTS = [
  'test/fault/change-kill.test.ts', 'test/fault/flr-kill.test.ts', 'test/fault/process-faults.test.ts',
  'test/mcp/eras-stdio.test.ts', 'test/mcp/eras-http.test.ts',
  'test/downstream/one-shot-client.test.ts', 'test/downstream/one-shot-http.test.ts',
  'test/mcp-conformance/**/*.test.ts', 'test/soak/**/*.test.ts',
];

export default defineConfig({
  test: {
    // Suites wait on simulated vCenter/ZVM tasks and timers besides burning CPU, so more workers
    // than cores shortens the run. The heavier projects (child processes, PostgreSQL, Chromium,
    // vcsim) keep six, which does not crowd the suites that wait on real sockets; `default` runs
    // first, on its own, with eight (the run times are in docs/performance.md).
    maxWorkers: 6,
    projects: [
      {
        test: {
          name: 'default',
          maxWorkers: 8,
          sequence: { groupOrder: 0 },
          include: ['test/**/*.test.ts'],
          exclude: ['test/vcsim/**', 'test/conformance/**', 'test/browser/**', 'test/live/**', 'test/central/**', 'test/package/pack-install.test.ts', 'test/package/mcpb-bundle.test.ts', 'test/package/deploy-verify.test.ts', ...PROCESS_TESTS],
          // One module graph per worker, not per file: evaluating the server, the SDK, zod and the
          // lab again for each file was half the run's CPU (docs/performance.md). The price is that
          // a file must leave nothing global behind: it closes its labs and servers and restores
          // real timers.
          isolate: false,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          // Files whose subject is the built server as a process, started again and again: kill -9
          // and restart, a full disk under ulimit, one binary per client era (stdio and HTTP), a
          // one-shot client's first listing with real downstream children, the MCP conformance
          // runner, the soak (scripts/soak-http.mjs in short, about 100 s). Their child processes
          // cost more CPU than most default files. Needs only Node; test:full and CI run it on
          // every Node version.
          name: 'process',
          sequence: { groupOrder: 1 },
          include: PROCESS_TESTS,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'package',
          sequence: { groupOrder: 1 },
          // The installed tarball, the Claude Desktop bundle built and started, the systemd unit
          // under systemd-analyze: child processes and packing, more CPU than any default file.
          include: ['test/package/pack-install.test.ts', 'test/package/mcpb-bundle.test.ts', 'test/package/deploy-verify.test.ts'],
          testTimeout: 180_000,
        },
      },
      {
        test: {
          name: 'vcsim',
          sequence: { groupOrder: 1 },
          // vcsim and the client-conformance suite (govmomi, pyVmomi) need the same Debian packages.
          include: ['test/vcsim/**/*.test.ts', 'test/conformance/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
      {
        test: {
          name: 'browser',
          sequence: { groupOrder: 1 },
          include: ['test/browser/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          // A throwaway PostgreSQL cluster (Debian's postgresql package) and two HTTP instances.
          name: 'central',
          sequence: { groupOrder: 1 },
          include: ['test/central/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
      {
        test: {
          name: 'live',
          sequence: { groupOrder: 1 },
          include: ['test/live/**/*.test.ts'],
          testTimeout: 120_000,
        },
      },
    ],
  },
});
