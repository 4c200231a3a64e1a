/**
 * The CopilotKit peer (a child process of the benchmark): CopilotKit's own runtime v2 with its
 * InMemoryAgentRunner and a BuiltInAgent, served by the runtime's Express handler at
 * /api/copilotkit (run, connect, stop), aimed at the fake upstream.
 *
 * The model is the AI SDK's OpenAI provider in chat-completions mode (`.chat()`), imported from
 * `@ai-sdk/openai`, which the runtime brings with it. The rejected alternative, the model string
 * "openai/…" with OPENAI_BASE_URL, builds the provider's default model, which speaks the
 * Responses API; the fake upstream (like the floor and Threadline) speaks chat completions, and
 * both peers should pay for the same wire format.
 */
import "../../../server/copilotkit/telemetry.ts"; // first: telemetry off before the runtime loads
import { createOpenAI } from "@ai-sdk/openai";
import { BuiltInAgent, CopilotRuntime, InMemoryAgentRunner } from "@copilotkit/runtime/v2";
import { createCopilotExpressHandler } from "@copilotkit/runtime/v2/express";
import express from "express";
import { serveChild } from "./child.ts";

const upstream = process.env.BENCH_UPSTREAM;
if (!upstream) throw new Error("BENCH_UPSTREAM (the fake upstream's /v1 URL) is not set; start this through npm run bench:peers.");

await serveChild(async () => {
  const model = createOpenAI({ baseURL: upstream, apiKey: "x" }).chat("bench");
  const runtime = new CopilotRuntime({
    agents: { default: new BuiltInAgent({ model }) },
    runner: new InMemoryAgentRunner(),
  });
  const app = express();
  app.use(createCopilotExpressHandler({ runtime, basePath: "/api/copilotkit", cors: false, activateChannels: false }));
  const server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve, reject) => server.once("listening", resolve).once("error", reject));
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : 0,
    info: "@copilotkit/runtime 1.75.0 v2: InMemoryAgentRunner + BuiltInAgent (@ai-sdk/openai .chat)",
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
});
