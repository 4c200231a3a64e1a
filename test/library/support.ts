/**
 * Threadline used as a library, as an application would: createThreadline with options, its
 * router() mounted in the application's own Express app next to the application's routes.
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import express from "express";
import { pino } from "pino";
import type { AgentDefinition } from "../../server/agents/define.ts";
import { loadConfig } from "../../server/config.ts";
import type { ThreadlineOptions } from "../../server/options.ts";
import { createThreadline, type Threadline } from "../../server/threadline.ts";

export interface LibraryApp {
  url: string;
  threadline: Threadline;
  close(): Promise<void>;
}

export interface LibraryAppOptions extends Omit<ThreadlineOptions, "config" | "logger" | "agents"> {
  /** OpenAI-compatible base URL (…/v1) of the aimock upstream. */
  llmUrl: string;
  agents: AgentDefinition[];
  /** Where the application mounts the router. */
  mount: string;
}

/** An application with its own routes ("/" and /health-of-my-app), Threadline's router at `mount`. */
export async function startLibraryApp({ llmUrl, mount, ...opts }: LibraryAppOptions): Promise<LibraryApp> {
  const dataDir = mkdtempSync(join(tmpdir(), "threadline-lib-"));
  let threadline: Threadline;
  try {
    threadline = createThreadline({
      ...opts,
      config: loadConfig({ LOG_LEVEL: "silent", OPENAI_BASE_URL: llmUrl, DATA_DIR: dataDir }),
      logger: pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
    });
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const app = express();
  app.get("/", (_req, res) => {
    res.send("my app");
  });
  app.get("/mine/status", (_req, res) => {
    res.json({ mine: true });
  });
  app.use(mount, threadline.router());
  await threadline.start();
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    threadline,
    async close() {
      await threadline.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
