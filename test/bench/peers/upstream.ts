/**
 * The fake OpenAI-compatible upstream with fixed pacing (a child process of the benchmark).
 *
 * `POST /v1/chat/completions` with `stream: true` answers with chat.completion.chunk SSE frames.
 * What to send is read from the last user message, `BENCH tag=<tag> n=<tokens> t=<ms>`: the
 * first token goes out at once, then one every t ms (t=0: as fast as the socket takes them).
 * Each token's content is ` ~<write time>`, the absolute time in ms at which this process wrote
 * it, so a client on this machine can compute upstream write → client receive per token.
 * When a request closes before its last token (the server under test aborted it), the parent
 * hears `upstream-closed` with the tag and the time: the cancel → upstream closed figure.
 *
 * A plain node:http server rather than aimock: aimock paces by chunk size and latency but does
 * not stamp each chunk with its write time, and its own work would sit in the measured path.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { now, send, serveChild } from "./child.ts";
import { parsePacing, stampToken, type Pacing } from "./pacing.ts";

function parseBody(body: unknown): Pacing | undefined {
  const messages = (body as { messages?: { role?: string; content?: unknown }[] }).messages ?? [];
  const user = [...messages].reverse().find((m) => m.role === "user");
  if (!user) return undefined;
  const text =
    typeof user.content === "string"
      ? user.content
      : Array.isArray(user.content)
        ? user.content.map((p: { text?: string }) => p.text ?? "").join("")
        : "";
  return parsePacing(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function stream(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let body: { stream?: boolean; model?: string; stream_options?: { include_usage?: boolean } };
  try {
    body = JSON.parse(await readBody(req));
  } catch {
    res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "send JSON" } }));
    return;
  }
  const pacing = parseBody(body) ?? { tag: "untagged", tokens: 5, intervalMs: 0 };
  if (body.stream !== true) {
    res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "only stream: true is served" } }));
    return;
  }
  let finished = false;
  let closed = false;
  res.on("close", () => {
    closed = true;
    if (!finished) send({ type: "upstream-closed", tag: pacing.tag, at: now(), finished: false });
  });
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const id = `chatcmpl-${pacing.tag}`;
  const created = Math.floor(Date.now() / 1000);
  const model = body.model ?? "bench";
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const write = async (frame: string) => {
    if (res.write(frame)) return;
    // Either event ends the wait; both listeners go, or they pile up on a long slow stream.
    await new Promise<void>((resolve) => {
      const done = () => {
        res.off("drain", done).off("close", done);
        resolve();
      };
      res.on("drain", done).on("close", done);
    });
  };

  await write(chunk({ role: "assistant", content: "" }, null));
  for (let i = 0; i < pacing.tokens && !closed; i++) {
    if (i > 0 && pacing.intervalMs > 0) await sleep(pacing.intervalMs);
    else if (i > 0 && i % 200 === 0) await new Promise<void>((r) => setImmediate(r));
    if (closed) break;
    await write(chunk({ content: stampToken(now()) }, null));
  }
  if (closed) return;
  await write(chunk({}, "stop"));
  if (body.stream_options?.include_usage) {
    const usage = { prompt_tokens: 10, completion_tokens: pacing.tokens, total_tokens: 10 + pacing.tokens };
    await write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage })}\n\n`);
  }
  finished = true;
  res.end("data: [DONE]\n\n");
}

await serveChild(async () => {
  const server = createServer((req, res) => {
    if (req.method === "POST" && req.url?.endsWith("/chat/completions")) {
      stream(req, res).catch((err: unknown) => {
        console.error("upstream stream failed:", err);
        res.destroy();
      });
      return;
    }
    res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `not served: ${req.method} ${req.url}` } }));
  });
  // Hundreds of concurrent runs each hold one upstream request open for seconds.
  server.maxConnections = 10_000;
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
});
