/** A test server's data directory is gone after close(), and after a start that failed. */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { startTestServer } from "./server.ts";

describe("test servers' data directories", () => {
  it("are removed by close(), and by a start that fails", async () => {
    const server = await startTestServer({ backend: "pglite" });
    const dir = server.threadline.config.DATA_DIR;
    expect(existsSync(dir)).toBe(true);
    await server.close();
    expect(existsSync(dir)).toBe(false);

    let failedDir: string | undefined;
    const failing = startTestServer({
      backend: "pglite",
      workspace: (config) => {
        failedDir = config.DATA_DIR;
        throw new Error("this start fails");
      },
    });
    await expect(failing).rejects.toThrow("this start fails");
    expect(failedDir).toBeDefined();
    expect(existsSync(failedDir!)).toBe(false);
  });
});
