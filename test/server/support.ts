/** Shared pieces for the in-process server tests: gates, a gated test agent, aimock helpers. */
import { LLMock, type ChatCompletionRequest } from "@copilotkit/aimock";
import { z } from "zod";
import { defineAgent, defineTool, type AgentDefinition } from "../../server/agents/define.ts";

export interface Gate {
  opened: Promise<void>;
  open(): void;
}

export function gate(): Gate {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}

/** A queue of signals a test can await one by one ("the tool started", ...). */
export class Signals<T = string> {
  readonly #items: T[] = [];
  readonly #waiters: ((v: T) => void)[] = [];
  push(v: T): void {
    const w = this.#waiters.shift();
    if (w) w(v);
    else this.#items.push(v);
  }
  next(): Promise<T> {
    const v = this.#items.shift();
    if (v !== undefined) return Promise.resolve(v);
    return new Promise((r) => this.#waiters.push(r));
  }
}

export interface GatedAgent {
  agent: AgentDefinition;
  /** One entry per execution start of `slow_step`, with its `label` argument. */
  started: Signals<string>;
  /** How many times each label ran to completion. */
  completed: Map<string, number>;
  /** Labels whose execution saw the abort signal. */
  aborted: string[];
  /** The gate every `slow_step` execution waits on. */
  release: Gate;
}

/** An agent with one backend tool that waits for the test to release it (or for the abort). */
export function gatedAgent(id = "gated"): GatedAgent {
  const started = new Signals<string>();
  const completed = new Map<string, number>();
  const aborted: string[] = [];
  const handle: GatedAgent = { agent: undefined as unknown as AgentDefinition, started, completed, aborted, release: gate() };
  const slowStep = defineTool({
    name: "slow_step",
    description: "A step that takes as long as the test wants.",
    inputSchema: z.object({ label: z.string() }),
    async execute({ label }, ctx) {
      started.push(label);
      await new Promise<void>((resolve, reject) => {
        ctx.signal.addEventListener("abort", () => {
          aborted.push(label);
          reject(new Error("aborted"));
        }, { once: true });
        void handle.release.opened.then(resolve);
      });
      completed.set(label, (completed.get(label) ?? 0) + 1);
      return { label, ok: true };
    },
  });
  handle.agent = defineAgent({ id, instructions: "Test agent.", tools: [slowStep], doubleTexting: "reject" });
  return handle;
}

export function lastUserText(req: ChatCompletionRequest): string {
  for (let i = req.messages.length - 1; i >= 0; i--) {
    const m = req.messages[i]!;
    if (m.role === "user") return typeof m.content === "string" ? m.content : JSON.stringify(m.content);
  }
  return "";
}

/**
 * aimock with: "two steps" -> two slow_step calls; a tool result last -> "steps done"; "think it
 * over" -> reasoning, then an answer; else echo.
 */
export async function startGatedUpstream(): Promise<{ mock: LLMock; url: string }> {
  const mock = new LLMock({ port: 0, host: "127.0.0.1", latency: 0, logLevel: "silent" });
  mock.addFixtures([
    { match: { predicate: (req) => req.messages.at(-1)?.role === "tool" }, response: { content: "steps done" } },
    {
      match: { predicate: (req) => lastUserText(req).includes("two steps") },
      response: {
        toolCalls: [
          { name: "slow_step", arguments: JSON.stringify({ label: "first" }), id: "call-first" },
          { name: "slow_step", arguments: JSON.stringify({ label: "second" }), id: "call-second" },
        ],
      },
    },
    {
      match: { predicate: (req) => lastUserText(req).includes("one step") },
      response: { toolCalls: [{ name: "slow_step", arguments: JSON.stringify({ label: "only" }), id: "call-only" }] },
    },
    {
      match: { predicate: (req) => lastUserText(req).includes("think it over") },
      response: { reasoning: "Weighing the question.", content: "Here is my answer." },
    },
    { match: { predicate: () => true }, response: (req) => ({ content: `answer to: ${lastUserText(req)}` }) },
  ]);
  const base = await mock.start();
  return { mock, url: `${base.replace(/\/$/, "")}/v1` };
}

let counter = 0;

/** A user message with a fresh id. */
export const user = (text: string) => ({ id: `u-${++counter}`, role: "user", content: text });

/** A RunAgentInput for `threadId` with a fresh run id. */
export const runBody = (threadId: string, messages: object[], extra: object = {}) => ({
  threadId,
  runId: `run-${++counter}`,
  messages,
  state: {},
  tools: [],
  context: [],
  ...extra,
});
