import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Each file gets its own process: servers, PGlite instances and Postgres schemas never leak
    // between files. Two workers match this machine's two cores.
    pool: "forks",
    maxWorkers: 2,
    // Bounds on a whole test or hook, whose own waits are bounds on events: on a loaded 2-core
    // machine (a run queue of 20) the first PGlite test of a file (schema-window, statements)
    // took 25 to 31 s, past the 30 s these were.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ["default"],
    // Drops the Postgres schemas each file created, and fails the file if one is left.
    setupFiles: ["test/support/teardown.ts"],
    // A fresh PGlite cluster's files, so that each in-memory PGlite skips initdb (support/pglite.ts).
    globalSetup: ["test/support/global-setup.ts"],
  },
});
