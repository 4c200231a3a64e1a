/**
 * The start-up sentences reach an application too: createThreadline(), listen() and start()
 * reject with a StartupError whose setting is the option the application passed, the original
 * error kept as `cause` (the standalone server's table is test/server/startup-errors.test.ts).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.ts";
import { StartupError } from "../../server/startup-errors.ts";
import { createThreadline } from "../../server/threadline.ts";

const tmp = mkdtempSync(join(tmpdir(), "threadline-lib-startup-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const base = { config: loadConfig({ LOG_LEVEL: "silent" }), logger: pino({ level: "silent" }) };

async function rejection(p: Promise<unknown>): Promise<StartupError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StartupError);
  return err as StartupError;
}

function causes(err: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = err; e; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

describe("StartupError for an application", () => {
  it("start() on a database URL nothing listens at: DATABASE_REFUSED naming the `database` option, ECONNREFUSED as a cause", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const threadline = createThreadline({ ...base, database: `postgres://postgres:s3cret@127.0.0.1:${port}/test` });
    try {
      const err = await rejection(threadline.start());
      expect(err).toMatchObject({ code: "DATABASE_REFUSED", setting: "the `database` option" });
      expect(err.message).toBe(
        `The \`database\` option points at 127.0.0.1:${port}, where nothing accepts connections (connection refused): start Postgres there, or fix the host and port in the \`database\` option.`,
      );
      expect(err.message).not.toContain("s3cret");
      expect(causes(err).some((e) => (e as { code?: unknown }).code === "ECONNREFUSED")).toBe(true);
    } finally {
      await threadline.close();
    }
  });

  it("listen() on a port in use: PORT_IN_USE, with nothing opened (its dataDir is not even made)", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as { port: number };
    const dataDir = join(tmp, "never-made");
    const threadline = createThreadline({ ...base, dataDir });
    try {
      const err = await rejection(threadline.listen(port, "127.0.0.1"));
      expect(err).toMatchObject({ code: "PORT_IN_USE", setting: "PORT" });
      expect(err.message).toBe(`PORT ${port} is in use by another process: stop it, or set PORT to a free port.`);
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      await threadline.close();
      taken.close();
    }
  });

  it("start() with a dataDir below a file: DATA_DIR_UNUSABLE naming the `dataDir` option and the path", async () => {
    const file = join(tmp, "a-file");
    writeFileSync(file, "");
    const threadline = createThreadline({ ...base, dataDir: join(file, "db") });
    try {
      const err = await rejection(threadline.start());
      expect(err).toMatchObject({ code: "DATA_DIR_UNUSABLE", setting: "the `dataDir` option" });
      expect(err.message).toContain(`(stat ${join(file, "db")}: ENOTDIR)`);
    } finally {
      await threadline.close();
    }
  });

  it("createThreadline() with a model whose key is missing: MODEL_UNAVAILABLE naming the variable", () => {
    let err: unknown;
    try {
      createThreadline({ ...base, model: "openrouter:meta-llama/llama-3.3-70b-instruct" });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StartupError);
    expect(err).toMatchObject({ code: "MODEL_UNAVAILABLE", setting: "OPENROUTER_API_KEY" });
    expect((err as Error).message).toBe(
      'The model "openrouter:meta-llama/llama-3.3-70b-instruct" (the `model` option) needs OPENROUTER_API_KEY: set OPENROUTER_API_KEY, or choose another model in the `model` option.',
    );
  });
});
