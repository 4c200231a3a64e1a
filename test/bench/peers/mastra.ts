/**
 * The Mastra peer (a child process of the benchmark): a Mastra `Agent` whose model is the fake
 * upstream, wrapped as an AG-UI agent by `@ag-ui/mastra`'s `MastraAgent` and served over SSE by
 * Express with `@ag-ui/encoder`: POST a RunAgentInput to /run, get the agent's event Observable
 * encoded frame by frame (what the AG-UI docs' Express server does with any AbstractAgent).
 *
 * The model is the AI SDK's OpenAI provider in chat-completions mode (`.chat()`), as for the
 * CopilotKit peer, so every system speaks the same wire format to the upstream; Mastra's own
 * model string ("openai/…") would speak the Responses API. The agent has no Memory: Mastra keeps
 * nothing between requests unless given storage, like the floor, and the client sends the
 * conversation with each run. So Mastra has no connect, cancel or thread route here ("—" in the
 * table): `MastraAgent` has no cursor to resume from, and unsubscribing from its Observable does
 * not abort the model request (integrations/mastra/typescript/src/mastra.ts).
 *
 * One `MastraAgent` per request (`clone()`): it keeps per-run fields (its request context), and
 * the CopilotKit runtime clones registered agents per request for the same reason.
 */
import type { BaseEvent, RunAgentInput } from "@ag-ui/core";
import { EventEncoder } from "@ag-ui/encoder";
import { MastraAgent } from "@ag-ui/mastra";
import { createOpenAI } from "@ai-sdk/openai";
import { Agent } from "@mastra/core/agent";
import express from "express";
import { serveChild } from "./child.ts";

// Mastra sends usage telemetry to PostHog unless told not to (read when it first reports).
process.env.MASTRA_TELEMETRY_DISABLED = "1";

const upstream = process.env.BENCH_UPSTREAM;
if (!upstream) throw new Error("BENCH_UPSTREAM (the fake upstream's /v1 URL) is not set; start this through npm run bench:peers.");

await serveChild(async () => {
  const model = createOpenAI({ baseURL: upstream, apiKey: "x" }).chat("bench");
  const agent = new Agent({ id: "default", name: "default", instructions: "You are a benchmark.", model });
  const template = new MastraAgent({ agent, resourceId: "bench" });
  const encoder = new EventEncoder();
  const app = express();
  app.post("/run", express.json({ limit: "4mb" }), (req, res) => {
    const input = req.body as RunAgentInput;
    res.writeHead(200, { "content-type": encoder.getContentType(), "cache-control": "no-cache", connection: "keep-alive" });
    const subscription = template
      .clone()
      .run(input)
      .subscribe({
        next: (event: BaseEvent) => res.write(encoder.encodeSSE(event)),
        error: (err: unknown) => {
          res.write(encoder.encodeSSE({ type: "RUN_ERROR", message: err instanceof Error ? err.message : String(err) } as BaseEvent));
          res.end();
        },
        complete: () => res.end(),
      });
    res.on("close", () => subscription.unsubscribe());
  });
  const server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve, reject) => server.once("listening", resolve).once("error", reject));
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : 0,
    info: "@mastra/core 1.68.0 Agent (no memory) via @ag-ui/mastra 1.1.2 MastraAgent, Express + @ag-ui/encoder (@ai-sdk/openai .chat)",
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
});
