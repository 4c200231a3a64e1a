import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Each file gets its own process: servers, PGlite instances and Postgres schemas never leak
    // between files. Two workers match this machine's two cores.
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ["default"],
    // Drops the Postgres schemas each file created, and fails the file if one is left.
    setupFiles: ["test/support/teardown.ts"],
    // A fresh PGlite cluster's files, so that each in-memory PGlite skips initdb (support/pglite.ts).
    globalSetup: ["test/support/global-setup.ts"],
  },
});
