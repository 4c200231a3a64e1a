/**
 * HTTP timeouts for a deployment behind a load balancer (issue 29, http/server-timeouts.ts):
 * - the standalone server (listen()) keeps an idle kept-alive connection past Node's default
 *   5 s: one socket (http.Agent, keepAlive, maxSockets 1) carries a run after 1 s, 6 s and 30 s
 *   of idleness, never reset and never replaced, and the server announces its 65 s;
 * - requestTimeout bounds receiving a request, not a response: with the bounds lowered (on the
 *   application's own server, through the exported applyHttpTimeouts), an SSE run stream stays
 *   open past requestTimeout, which the server meanwhile enforces on a request left unfinished
 *   (408), and ends whole.
 */
import { randomUUID } from "node:crypto";
import { createServer, request as httpRequest, Agent, type IncomingHttpHeaders, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import express from "express";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.ts";
import { applyHttpTimeouts, DEFAULT_KEEP_ALIVE_TIMEOUT_MS, httpTimeouts } from "../../server/http/server-timeouts.ts";
import { createThreadline, type Threadline } from "../../server/threadline.ts";
import { testPglite } from "../support/pglite.ts";
import { gatedAgent, startGatedUpstream } from "./support.ts";

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  socket: Socket;
}

/** One request through `agent`, with the socket it went out on. */
function send(agent: Agent, url: string, method: string, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(url, { agent, method, headers: payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {} }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: text, socket: req.socket as Socket }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(payload);
  });
}

const runBody = (content: string) => ({ threadId: `ka-${randomUUID()}`, runId: randomUUID(), messages: [{ id: randomUUID(), role: "user", content }], tools: [], context: [], state: {} });

describe("the standalone server's keep-alive", () => {
  let threadline: Threadline;
  let url: string;
  const pglite = testPglite();
  beforeAll(async () => {
    threadline = createThreadline({ database: pglite, config: loadConfig({ LOG_LEVEL: "silent" }), logger: pino({ level: "silent" }) });
    const port = await threadline.listen(0, "127.0.0.1");
    url = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await threadline?.close();
    await pglite.close();
  });

  it(
    "one kept-alive socket carries a run after 1 s, 6 s and 30 s idle: never reset, never replaced",
    async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const sockets = new Set<Socket>();
      const closed: string[] = [];
      try {
        // The server says how long it keeps the connection (a run's SSE response sets its own Connection header).
        const first = await send(agent, `${url}/healthz`, "GET");
        expect(first.status).toBe(200);
        expect(first.headers["keep-alive"]).toBe(`timeout=${DEFAULT_KEEP_ALIVE_TIMEOUT_MS / 1000}`);
        sockets.add(first.socket);
        first.socket.once("close", (hadError) => closed.push(`closed${hadError ? " with an error" : ""}`));
        for (const idleMs of [1_000, 6_000, 30_000]) {
          // The idleness is what is tested: nothing to await but the time passing.
          await new Promise((resolve) => setTimeout(resolve, idleMs));
          const answer = await send(agent, `${url}/api/agents/default/run`, "POST", runBody(`after ${idleMs} ms`));
          expect(answer.status, `after ${idleMs} ms idle`).toBe(200);
          expect(answer.body).toContain('"type":"RUN_FINISHED"');
          sockets.add(answer.socket);
        }
        expect(closed).toEqual([]);
        expect(sockets.size).toBe(1);
      } finally {
        agent.destroy();
      }
    },
    90_000,
  );
});

describe("requestTimeout and a long SSE stream (the application's own server)", () => {
  let upstream: Awaited<ReturnType<typeof startGatedUpstream>>;
  let threadline: Threadline;
  let server: Server;
  let port: number;
  const gated = gatedAgent("slow");
  const pglite = testPglite();
  // Lowered so that the test is quick: requestTimeout 1.2 s (headersTimeout's floor), checked every 100 ms.
  const timeouts = httpTimeouts(200, 1_000);

  beforeAll(async () => {
    upstream = await startGatedUpstream();
    threadline = createThreadline({
      database: pglite,
      agents: [gated.agent],
      config: loadConfig({ LOG_LEVEL: "silent", OPENAI_BASE_URL: upstream.url }),
      logger: pino({ level: "silent" }),
    });
    const app = express();
    app.use(threadline.health());
    app.use("/ai", threadline.router());
    await threadline.start();
    server = applyHttpTimeouts(createServer({ connectionsCheckingInterval: 100 }, app), timeouts);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await threadline?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await pglite.close();
    await upstream?.mock.stop();
  });

  it("a stream open past requestTimeout, which the server enforces meanwhile on an unfinished request (408), ends whole", async () => {
    expect(timeouts.requestTimeoutMs).toBe(1_200);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const stream = send(agent, `http://127.0.0.1:${port}/ai/agents/slow/run`, "POST", runBody("do one step"));
      // The run's request was received whole and its stream is open: the tool is running.
      expect(await gated.started.next()).toBe("only");
      const openedAt = performance.now();
      // A request whose body never comes, sent after the stream's: cut once requestTimeout passed.
      const unfinished = connect(port, "127.0.0.1");
      let reply = "";
      unfinished.on("data", (d: Buffer) => (reply += d.toString()));
      unfinished.write("POST /ai/agents/slow/run HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{");
      await new Promise<void>((resolve) => unfinished.once("close", () => resolve()));
      expect(reply).toMatch(/^HTTP\/1\.1 408 /);
      expect(performance.now() - openedAt).toBeGreaterThanOrEqual(timeouts.requestTimeoutMs - 200);
      gated.release.open();
      const answer = await stream;
      expect(answer.status).toBe(200);
      expect(answer.body).toContain('"type":"TOOL_CALL_RESULT"');
      expect(answer.body).toContain('"type":"RUN_FINISHED"');
    } finally {
      agent.destroy();
    }
  });
});
