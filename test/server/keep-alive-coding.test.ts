/**
 * The coding agent's session on one kept-alive connection, on a busy machine (issue 29): five
 * runs of the coding agent (the demo model's scripted session: write, run, edit, run, read, a
 * summary) sent one after another through one socket (http.Agent, keepAlive, maxSockets 1),
 * with the idle gaps a person leaves between messages, while busy loops hold every core (two per
 * core). Node's default keepAliveTimeout (5 s) reset that socket on the 4th run ("other side
 * closed"); the server's own 65 s (http/server-timeouts.ts) keeps it. Each run must be answered
 * 200 with RUN_FINISHED, on the same socket, which never closes.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.ts";
import { createThreadline, type Threadline } from "../../server/threadline.ts";
import { type BusyLoops, startBusyLoops } from "../support/busy-loops.ts";
import { testPglite } from "../support/pglite.ts";

/** Idle gaps between the runs: under Node's default 5 s and over it, as a person types. */
const GAPS_MS = [500, 6_000, 1_000, 7_000];

function send(agent: Agent, url: string, body?: unknown): Promise<{ status: number; text: string; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers = payload === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(payload) };
    const req = httpRequest(url, { agent, method: payload === undefined ? "GET" : "POST", headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode!, text, socket: req.socket as Socket }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(payload);
  });
}

describe("the coding agent's session on one kept-alive connection, busy loops two per core", () => {
  const pglite = testPglite();
  const root = mkdtempSync(join(tmpdir(), "threadline-ka-coding-"));
  let threadline: Threadline;
  let url: string;
  let busy: BusyLoops | undefined;

  beforeAll(async () => {
    threadline = createThreadline({ database: pglite, config: loadConfig({ LOG_LEVEL: "silent", WORKSPACE_ROOT: root }), logger: pino({ level: "silent" }) });
    const port = await threadline.listen(0, "127.0.0.1");
    url = `http://127.0.0.1:${port}`;
  }, 120_000);
  afterAll(async () => {
    await busy?.stop();
    await threadline?.close();
    await pglite.close();
    rmSync(root, { recursive: true, force: true });
  });

  it(
    "five runs, with idle gaps past Node's default keep-alive, on one socket that is never reset",
    async () => {
      busy = startBusyLoops({ perCore: 2, maxMs: 5 * 60_000 });
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const sockets = new Set<Socket>();
      const closes: boolean[] = [];
      const threadId = `ka-coding-${randomUUID()}`;
      // The history as a client holds it: the thread's messages, read on the same socket after each run.
      let history: unknown[] = [];
      try {
        for (let i = 0; i < 5; i++) {
          if (i > 0) await new Promise((resolve) => setTimeout(resolve, GAPS_MS[i - 1])); // the idleness is what is tested
          const messages = [...history, { id: randomUUID(), role: "user", content: i === 0 ? "Show me what you can do" : `And again (${i + 1})` }];
          const answer = await send(agent, `${url}/api/agents/coding/run`, { threadId, runId: randomUUID(), messages, tools: [], context: [], state: {} });
          expect(answer.status, `run ${i + 1}: ${answer.text.slice(0, 300)}`).toBe(200);
          expect(answer.text, `run ${i + 1}`).toContain('"type":"RUN_FINISHED"');
          expect(answer.text, `run ${i + 1}`).not.toContain('"type":"RUN_ERROR"');
          if (!sockets.has(answer.socket)) answer.socket.once("close", (hadError) => closes.push(hadError));
          sockets.add(answer.socket);
          const thread = await send(agent, `${url}/api/threads/${threadId}`);
          expect(thread.status).toBe(200);
          history = (JSON.parse(thread.text) as { messages: unknown[] }).messages;
          sockets.add(thread.socket);
        }
        expect(closes).toEqual([]);
        expect(sockets.size).toBe(1);
      } finally {
        agent.destroy();
        await busy.stop();
      }
    },
    300_000,
  );
});
