/**
 * The demo script (server/demo/script.ts) served by aimock on a loopback port as an
 * OpenAI-compatible upstream, for tests that drive the openai adapter and the real `openai` SDK
 * with the demo's answers (the demo model itself answers in process: server/models/demo/).
 * test/llm/demo-parity.test.ts holds the two equal.
 */
import { type Fixture, LLMock } from "@copilotkit/aimock";
import { demoScript } from "../../server/demo/script.ts";
import { DEMO_CHUNK_SIZE, DEMO_DEFAULT_LATENCY_MS } from "../../server/models/demo/demo-model.ts";
import { CHAT_COMPLETIONS_PATH, wholeCodePoints } from "./whole-code-points.ts";

export interface DemoUpstreamOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Keep it on loopback: aimock also serves control routes (/__aimock/*) that edit its fixtures. */
  host?: string;
  /** Delay before each streamed chunk, so the demo visibly streams; 0 for tests. */
  latencyMs?: number;
}

export interface DemoUpstream {
  /** The /v1 base URL to give the OpenAI client. */
  url: string;
  stop(): Promise<void>;
}

export async function startDemoUpstream(opts: DemoUpstreamOptions = {}): Promise<DemoUpstream> {
  const mock = new LLMock({
    port: opts.port ?? 0,
    host: opts.host ?? "127.0.0.1",
    latency: opts.latencyMs ?? DEMO_DEFAULT_LATENCY_MS,
    chunkSize: DEMO_CHUNK_SIZE,
    logLevel: "silent",
    // aimock journals every request body for inspection; a long-running demo needs only a few.
    journalMaxEntries: 20,
  });
  // Our fixture shapes are the subset of aimock's the script uses; its request is a superset of ours.
  mock.addFixtures(demoScript() as Fixture[]);
  // aimock slices by UTF-16 units: this keeps each surrogate pair inside one frame.
  mock.mount(CHAT_COMPLETIONS_PATH, wholeCodePoints());
  const base = await mock.start();
  return { url: `${base.replace(/\/$/, "")}/v1`, stop: () => mock.stop() };
}
