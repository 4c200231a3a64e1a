/**
 * The floor (a child process of the benchmark): the least any AG-UI server can do. Express, the
 * `openai` SDK and `@ag-ui/encoder`, no persistence, no runner: POST a RunAgentInput, get
 * RUN_STARTED, the answer as TEXT_MESSAGE_*, RUN_FINISHED. A client that goes away aborts the
 * upstream request. Every other system is measured against this.
 */
import { randomUUID } from "node:crypto";
import { EventType, type BaseEvent } from "@ag-ui/core";
import { EventEncoder } from "@ag-ui/encoder";
import express from "express";
import OpenAI from "openai";
import { serveChild } from "./child.ts";

const upstream = process.env.BENCH_UPSTREAM;
if (!upstream) throw new Error("BENCH_UPSTREAM (the fake upstream's /v1 URL) is not set; start this through npm run bench:peers.");

interface Input {
  threadId: string;
  runId: string;
  messages: { role: string; content?: unknown }[];
}

await serveChild(async () => {
  const openai = new OpenAI({ baseURL: upstream, apiKey: "x", maxRetries: 0 });
  const encoder = new EventEncoder();
  const app = express();
  app.post("/run", express.json({ limit: "4mb" }), async (req, res) => {
    const input = req.body as Input;
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    res.writeHead(200, { "content-type": encoder.getContentType(), "cache-control": "no-cache", connection: "keep-alive" });
    const emit = (e: Record<string, unknown>) => res.write(encoder.encodeSSE(e as unknown as BaseEvent));
    emit({ type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId });
    const messageId = randomUUID();
    let started = false;
    try {
      const stream = await openai.chat.completions.create(
        {
          model: "bench",
          stream: true,
          messages: input.messages
            .filter((m) => m.role === "user" || m.role === "assistant" || m.role === "system")
            .map((m) => ({ role: m.role as "user", content: typeof m.content === "string" ? m.content : "" })),
        },
        { signal: abort.signal },
      );
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta?.content;
        if (!delta) continue;
        if (!started) {
          started = true;
          emit({ type: EventType.TEXT_MESSAGE_START, messageId, role: "assistant" });
        }
        emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta });
      }
      if (started) emit({ type: EventType.TEXT_MESSAGE_END, messageId });
      emit({ type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId });
    } catch (err) {
      if (!abort.signal.aborted) emit({ type: EventType.RUN_ERROR, message: err instanceof Error ? err.message : String(err) });
    }
    res.end();
  });
  const server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve, reject) => server.once("listening", resolve).once("error", reject));
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
});
