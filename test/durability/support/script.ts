/**
 * The scripted world of the durability tests: an aimock upstream whose answers depend only on
 * the request (so two runs of the same conversation stream the same chunks), and a test agent
 * whose backend tools produce state deltas, activity, terminal output, or end the conversation.
 *
 * Triggers (case-insensitive, in the last user message):
 *   "long"    -> a long intro text + a `work` call with long arguments (many frames), then after
 *                its result a long answer: the chaos run.
 *   "lookup"  -> a `lookup` call (one STATE_DELTA), then a short answer.
 *   "finish"  -> a `finish` call, whose tool calls ctx.complete(): the thread ends COMPLETED.
 *   "paint"   -> a call to the frontend tool `change_background`: the thread ends WAITING on it.
 *   "explode" -> an upstream HTTP 500: the run fails.
 *   "break"   -> the slow answer, cut by the upstream hanging up after 150 ms: the run fails mid-text.
 *   "slow"    -> a long, slow text answer (to cancel or reload in the middle of).
 *   "hold"    -> a text + a `hold` call, whose tool waits for the test to let it go: a run that is
 *                certainly still running while the test does something.
 *   anything else -> a short greeting.
 * "long", "slow", "break" and "hold" stream at `latencyMs` per chunk; the rest at once.
 */
import { createHash } from "node:crypto";
import type { ChatCompletionRequest, ChatMessage, Fixture } from "@copilotkit/aimock";
import { LLMock } from "@copilotkit/aimock";
import { z } from "zod";
import { defineAgent, defineTool, type AgentDefinition } from "../../../server/agents/define.ts";

export const AGENT_ID = "durable";
export const FRONTEND_TOOL = {
  name: "change_background",
  description: "Changes the page background",
  parameters: { type: "object", properties: { color: { type: "string" } }, required: ["color"] },
};

/** Deterministic prose: `words` words cycling through a fixed vocabulary. */
export function prose(words: number, seed = 0): string {
  const vocab = ["durable", "threads", "replay", "the", "log", "never", "forgets", "a", "frame", "cursor", "résumé", "°C"];
  return `${Array.from({ length: words }, (_, i) => vocab[(i * 7 + seed) % vocab.length]).join(" ")}.`;
}

export const LONG_INTRO = prose(120, 1);
export const LONG_ANSWER = prose(260, 2);
export const SLOW_ANSWER = prose(200, 3);
export const HOLD_TEXT = prose(40, 4);
export const WORK_ITEMS = Array.from({ length: 24 }, (_, i) => `item ${i}: ${prose(4, i)}`);

function text(content: ChatMessage["content"]): string {
  if (typeof content === "string") return content;
  return (content ?? []).map((p) => p.text ?? "").join("");
}

function lastUser(req: ChatCompletionRequest): string {
  return text(req.messages.findLast((m) => m.role === "user")?.content ?? "").toLowerCase();
}

/** The name of the tool whose result ends the request, if it ends with one. */
function answered(req: ChatCompletionRequest): string | undefined {
  const last = req.messages.at(-1);
  if (last?.role !== "tool") return undefined;
  for (const m of req.messages) for (const c of m.tool_calls ?? []) if (c.id === last.tool_call_id) return c.function.name;
  return undefined;
}

function callId(req: ChatCompletionRequest): string {
  return `call_${createHash("sha256").update(JSON.stringify(req.messages)).digest("hex").slice(0, 20)}`;
}

function call(req: ChatCompletionRequest, name: string, args: object) {
  return { id: callId(req), name, arguments: JSON.stringify(args) };
}

export function scriptFixtures(latencyMs: number, chunkSize: number): Fixture[] {
  const slow = { latency: latencyMs, chunkSize };
  const says = (w: string) => (req: ChatCompletionRequest) => lastUser(req).includes(w);
  return [
    { match: { predicate: (r) => answered(r) === "work" }, response: { content: LONG_ANSWER }, ...slow },
    {
      match: { predicate: (r) => answered(r) === "lookup" },
      response: (r) => ({ content: `Found it: ${text(r.messages.at(-1)?.content ?? "")}` }),
    },
    { match: { predicate: (r) => answered(r) !== undefined }, response: { content: "Done." } },
    {
      match: { predicate: says("long") },
      response: (r) => ({ content: LONG_INTRO, toolCalls: [call(r, "work", { items: WORK_ITEMS })] }),
      ...slow,
    },
    { match: { predicate: says("lookup") }, response: (r) => ({ toolCalls: [call(r, "lookup", { query: "answer" })] }) },
    { match: { predicate: says("finish") }, response: (r) => ({ toolCalls: [call(r, "finish", { summary: "all done" })] }) },
    {
      match: { predicate: says("paint") },
      response: (r) => ({ content: "Painting it.", toolCalls: [call(r, FRONTEND_TOOL.name, { color: "blue" })] }),
    },
    { match: { predicate: says("explode") }, response: { error: { message: "upstream exploded", type: "server_error" }, status: 500 } },
    { match: { predicate: says("break") }, response: { content: SLOW_ANSWER }, ...slow, disconnectAfterMs: 150 },
    { match: { predicate: says("slow") }, response: { content: SLOW_ANSWER }, ...slow },
    {
      match: { predicate: says("hold") },
      response: (r) => ({ content: HOLD_TEXT, toolCalls: [call(r, "hold", { reason: "the test holds this run open" })] }),
      ...slow,
    },
    { match: {}, response: { content: "Hello! How can I help?" } },
  ];
}

export interface ScriptUpstream {
  url: string;
  stop(): Promise<void>;
}

export async function startScriptUpstream(opts: { latencyMs?: number; chunkSize?: number } = {}): Promise<ScriptUpstream> {
  const mock = new LLMock({ port: 0, host: "127.0.0.1", latency: 0, chunkSize: 8, logLevel: "silent", journalMaxEntries: 50 });
  mock.addFixtures(scriptFixtures(opts.latencyMs ?? 3, opts.chunkSize ?? 3));
  const base = await mock.start();
  return { url: `${base.replace(/\/$/, "")}/v1`, stop: () => mock.stop() };
}

/**
 * The test agent: `work` (many state deltas, activity, terminal), `lookup`, `finish`, and `hold`,
 * which returns once `opts.hold()` resolves.
 */
export function durableAgent(opts: { hold?: () => Promise<void> } = {}): AgentDefinition {
  const work = defineTool({
    name: "work",
    description: "Works through items, reporting progress in state.work",
    inputSchema: z.object({ items: z.array(z.string()) }),
    async execute({ items }, ctx) {
      await ctx.state.patch([{ op: "add", path: "/work", value: { done: [] as string[], total: items.length } }]);
      for (const [i, item] of items.entries()) {
        await ctx.terminal(`working on ${item}\n`);
        await ctx.state.patch([{ op: "add", path: "/work/done/-", value: item }]);
        if (i % 8 === 0) await ctx.progress({ step: i + 1, of: items.length }, "work-progress");
      }
      return { done: items.length };
    },
  });
  const lookup = defineTool({
    name: "lookup",
    description: "Looks something up",
    inputSchema: z.object({ query: z.string() }),
    async execute({ query }, ctx) {
      await ctx.state.patch([{ op: "add", path: "/lookups", value: [query] }]);
      return { query, value: 42 };
    },
  });
  const finish = defineTool({
    name: "finish",
    description: "Ends the conversation",
    inputSchema: z.object({ summary: z.string() }),
    execute({ summary }, ctx) {
      ctx.complete({ summary });
      return "finished";
    },
  });
  const hold = defineTool({
    name: "hold",
    description: "Waits until released",
    inputSchema: z.object({ reason: z.string() }),
    async execute(_args, ctx) {
      // Held until the test opens the door, or the run is cancelled.
      const aborted = new Promise<never>((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true }));
      await Promise.race([opts.hold?.(), aborted]);
      return "released";
    },
  });
  return defineAgent({ id: AGENT_ID, instructions: "You are a test agent.", tools: [work, lookup, finish, hold], maxTurns: 4 });
}

/** A door for `hold`: close() it before the run, open() it to let the tool return. */
export function gate(): { hold: () => Promise<void>; close(): void; open(): void } {
  let current = Promise.resolve();
  let release = () => {};
  return {
    hold: () => current,
    close() {
      current = new Promise<void>((resolve) => (release = resolve));
    },
    open: () => release(),
  };
}
