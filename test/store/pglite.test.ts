import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createStore } from "../../server/store/index.ts";
import { pgliteBackend } from "./backends.ts";
import { storeContract } from "./contract.ts";
import { ev } from "./fixtures.ts";

storeContract(pgliteBackend());

describe("PGlite store", () => {
  it("keeps its data in dataDir across restarts", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "threadline-pglite-"));
    try {
      const first = createStore({ dataDir });
      expect(first.kind).toBe("pglite");
      await first.migrate();
      await first.ensureThread("t", "agent");
      await first.append("t", [ev.userMessage("remember me")]);
      await first.close();

      const second = createStore({ dataDir });
      await second.ping();
      expect((await second.read("t")).map((e) => e.seq)).toEqual([1]);
      await second.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
