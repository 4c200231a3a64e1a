/**
 * The built-in demo model: an embedded aimock server on a loopback port that speaks the
 * OpenAI Chat Completions API and answers from the demo script (fixtures.ts). The engine talks
 * to it through the real `openai` SDK, exactly as it talks to a real provider, so the demo
 * exercises the same code path (streaming, tool calls, usage) that production uses.
 */
import { LLMock } from "@copilotkit/aimock";
import { approvalsFixtures } from "./approvals-fixtures.ts";
import { demoFixtures } from "./fixtures.ts";
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

/** UTF-16 units per streamed chunk (whole code points: whole-code-points.ts): small enough that text arrives word by word. */
const CHUNK_SIZE = 8;

export async function startDemoUpstream(opts: DemoUpstreamOptions = {}): Promise<DemoUpstream> {
  const mock = new LLMock({
    port: opts.port ?? 0,
    host: opts.host ?? "127.0.0.1",
    latency: opts.latencyMs ?? 15,
    chunkSize: CHUNK_SIZE,
    logLevel: "silent",
    // aimock journals every request body for inspection; a long-running demo needs only a few.
    journalMaxEntries: 20,
  });
  // The approvals agent's script first: it answers only requests that offer that agent's tools.
  mock.addFixtures([...approvalsFixtures(), ...demoFixtures()]);
  // aimock slices by UTF-16 units: this keeps each surrogate pair inside one frame.
  mock.mount(CHAT_COMPLETIONS_PATH, wholeCodePoints());
  const base = await mock.start();
  return { url: `${base.replace(/\/$/, "")}/v1`, stop: () => mock.stop() };
}
