/**
 * CopilotKit's own browser client, headless, for tests: CopilotKit core (1.74 or 1.75) with the
 * proxy agent it builds from a runtime's /info, driven the way react-core drives it, through one
 * of three doors: Threadline's own /api/copilotkit, or an application's own @copilotkit/runtime
 * 1.75 (v1: copilotRuntimeNodeHttpEndpoint, single-route; v2: createCopilotRuntimeHandler,
 * multi-route) whose agents are AG-UI HttpAgents aimed at Threadline's run endpoint.
 *
 * Outside a browser the core never fetches /info (its runtime connection needs `window`), so the
 * proxy agent it would build from /info is built here the same way, on the transport the door
 * serves. Everything the client sees is recorded as the agent's subscribers see it.
 */
import "../../server/copilotkit/telemetry.ts"; // first: telemetry off before the runtime loads
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { HttpAgent as HttpAgent100 } from "@ag-ui/client";
import { HttpAgent as HttpAgent0059 } from "@ag-ui/client-0059";
import * as core174 from "@copilotkit/core";
import * as core175 from "@copilotkit/core-175";
import { CopilotRuntime as CopilotRuntimeV1, copilotRuntimeNodeHttpEndpoint, ExperimentalEmptyAdapter } from "@copilotkit/runtime";
import { CopilotRuntime, createCopilotRuntimeHandler } from "@copilotkit/runtime/v2";
import { createCopilotNodeHandler } from "@copilotkit/runtime/v2/node";
import type { ClientVersion } from "./agui-clients.ts";

export const CORE_VERSIONS = ["1.74", "1.75"] as const;
export type CoreVersion = (typeof CORE_VERSIONS)[number];
const CORES = { "1.74": core174, "1.75": core175 } as const;

export const APP_RUNTIMES = ["v2", "v1"] as const;
export type AppRuntimeKind = (typeof APP_RUNTIMES)[number];

/** Where the core sends its requests: a runtime URL and the transport that runtime serves. */
export interface Door {
  label: string;
  runtimeUrl: string;
  transport: "rest" | "single";
}

const BASE = "/api/copilotkit";

/** Threadline's own CopilotKit runtime (multi-route). */
export function threadlineDoor(threadlineUrl: string): Door {
  return { label: "/api/copilotkit", runtimeUrl: `${threadlineUrl}${BASE}`, transport: "rest" };
}

export interface AppRuntime extends Door {
  close(): Promise<void>;
}

/**
 * The HttpAgent an app gives its runtime: @ag-ui/client 1.0.0's (declares protocolVersion 1.0),
 * 0.0.59's (declares nothing), or 1.0.0's capped at 0.0.59: AG-UI's own way to say the peer
 * speaks an older protocol (`maxProtocolVersion`), so that it declares nothing either.
 */
export type AppAgentVersion = ClientVersion | typeof CAPPED;
export const CAPPED = "1.0.0 capped at 0.0.59";

class CappedHttpAgent extends HttpAgent100 {
  override get maxProtocolVersion(): string {
    return "0.0.59";
  }
}

function appAgent(version: AppAgentVersion, threadlineUrl: string, agentId: string, headers: Record<string, string>) {
  const config = { url: `${threadlineUrl}/api/agents/${agentId}/run`, headers };
  // The classes are typed against two @ag-ui/core versions; the runtime takes either.
  if (version === "0.0.59") return new HttpAgent0059(config) as never;
  return (version === CAPPED ? new CappedHttpAgent(config) : new HttpAgent100(config)) as never;
}

/** An application's own runtime on its own port, serving `agentIds` from Threadline, as an app serves it. */
export async function startAppRuntime(
  kind: AppRuntimeKind,
  version: AppAgentVersion,
  threadlineUrl: string,
  agentIds: readonly string[],
  headers: Record<string, string> = {},
): Promise<AppRuntime> {
  const agents = Object.fromEntries(agentIds.map((id) => [id, appAgent(version, threadlineUrl, id, headers)]));
  let listener: RequestListener;
  if (kind === "v2") {
    const runtime = new CopilotRuntime({ agents });
    listener = createCopilotNodeHandler(createCopilotRuntimeHandler({ runtime, basePath: BASE, activateChannels: false }));
  } else {
    const runtime = new CopilotRuntimeV1({ agents });
    listener = copilotRuntimeNodeHttpEndpoint({ runtime, serviceAdapter: new ExperimentalEmptyAdapter(), endpoint: BASE }) as RequestListener;
  }
  const server: Server = createServer(listener);
  await new Promise<void>((resolve, reject) => server.listen(0, "127.0.0.1", resolve).once("error", reject));
  return {
    label: `app ${kind} (HttpAgent ${version})`,
    runtimeUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}${BASE}`,
    transport: kind === "v2" ? "rest" : "single",
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export interface CkEvent {
  type: string;
  [key: string]: unknown;
}

export interface CkInterrupt {
  id: string;
  reason: string;
  toolCallId?: string;
  expiresAt?: string;
  [key: string]: unknown;
}

export interface CkFinish {
  runId: string;
  outcome: string;
  interrupts: CkInterrupt[];
  event: CkEvent;
}

export interface CkMessage {
  id: string;
  role: string;
  content?: unknown;
  toolCallId?: string;
  toolCalls?: { id: string; function: { name: string; arguments: string } }[];
}

/** The proxy agent's surface the tests use (both core versions have it). */
export interface CkAgent {
  threadId: string;
  messages: CkMessage[];
  state: unknown;
  addMessage(m: CkMessage): void;
  setMessages(m: CkMessage[]): void;
  setState(state: unknown): void;
  subscribe(s: object): { unsubscribe(): void };
}

interface CkCore {
  runAgent(p: { agent: CkAgent; runId?: string; resume?: unknown[]; forwardedProps?: Record<string, unknown> }): Promise<unknown>;
  connectAgent(p: { agent: CkAgent }): Promise<unknown>;
  stopAgent(p: { agent: CkAgent }): void;
  subscribe(s: object): unknown;
}

export interface FrontendTool {
  name: string;
  description: string;
  parameters?: unknown;
  handler?: (args: unknown) => unknown;
}

export interface CkSession {
  core: CkCore;
  agent: CkAgent;
  /** Every event the agent's subscribers saw, in order, across runs and connects. */
  events: CkEvent[];
  finishes: CkFinish[];
  /** RUN_ERROR events, as `code: message`. */
  runErrors: string[];
  /** Runs the agent's own client failed (onRunFailed): a stream it could not parse or verify. */
  runFailures: string[];
  /** What the core reported to its own onError subscribers (a run or connect it could not complete). */
  coreErrors: string[];
  /** Adds a user message and runs, as the chat's send does. */
  say(text: string): Promise<void>;
  run(params?: { runId?: string; resume?: unknown[]; forwardedProps?: Record<string, unknown> }): Promise<void>;
  /** A page load: connectAgent, the core's restore of a thread. */
  connect(): Promise<void>;
  /** The events seen since `mark` (events.length when taken). */
  since(mark: number): CkEvent[];
  /** The assistant text the agent holds. */
  reply(): string;
  /**
   * useInterrupt's resolve and cancel, as react-core runs them: the last interrupt outcome goes to
   * core's own InterruptState, each answer is recorded under its interrupt's id, and once every
   * open interrupt has one, the tool messages the state builds are added and the resume runs under
   * the interrupted run's id. Returns the state's decision after each answer ("waiting",
   * "resume", "expired", ...).
   */
  answer(answers: InterruptAnswer[]): Promise<string[]>;
}

export type InterruptAnswer = { id: string; payload: unknown } | { id: string; cancel: true };

interface InterruptDecision {
  kind: string;
  resume?: unknown[];
  toolResults?: { toolCallId: string; content: string }[];
}

/**
 * Runs `fn` with console.warn/error muted: the core logs what it also reports to its subscribers,
 * where the tests read it. Counted, so that sessions running at the same time (concurrent tests)
 * restore the console only when the last one is done.
 */
let muted = 0;
const console0 = { warn: console.warn, error: console.error };
async function quiet(fn: () => Promise<unknown>): Promise<void> {
  if (muted++ === 0) {
    console.warn = () => {};
    console.error = () => {};
  }
  try {
    await fn();
  } finally {
    if (--muted === 0) Object.assign(console, console0);
  }
}

/** One conversation of CopilotKit core `version` through `door`, on `agentId`'s thread `threadId`. */
export function ckSession(
  version: CoreVersion,
  door: Door,
  agentId: string,
  threadId: string,
  opts: { tools?: FrontendTool[]; headers?: Record<string, string> } = {},
): CkSession {
  const lib = CORES[version];
  // `headers` as an app gives <CopilotKit headers>: the core's, which it sets on the agents it
  // builds from /info (built here, so given to it as well).
  const headers = opts.headers ?? {};
  const core = new lib.CopilotKitCore({ runtimeUrl: door.runtimeUrl, headers, tools: (opts.tools ?? []) as never }) as unknown as CkCore;
  const agent = new lib.ProxiedCopilotRuntimeAgent({ runtimeUrl: door.runtimeUrl, agentId, transport: door.transport, headers }) as unknown as CkAgent;
  agent.threadId = threadId;
  const events: CkEvent[] = [];
  const finishes: CkFinish[] = [];
  const runErrors: string[] = [];
  const runFailures: string[] = [];
  const coreErrors: string[] = [];
  agent.subscribe({
    onEvent: ({ event }: { event: CkEvent }) => void events.push(event),
    onRunFinishedEvent: (p: { event: CkEvent; input: { runId: string }; outcome?: string; interrupts?: CkInterrupt[] }) => {
      finishes.push({ runId: p.input.runId, outcome: p.outcome ?? "success", interrupts: p.interrupts ?? [], event: p.event });
    },
    onRunErrorEvent: (p: { event: { message: string; code?: string } }) => void runErrors.push(`${p.event.code}: ${p.event.message}`),
    onRunFailed: ({ error }: { error: Error }) => void runFailures.push(error.message),
  });
  core.subscribe({ onError: ({ error, code }: { error: Error; code: string }) => void coreErrors.push(`${code}: ${error.message}`) });
  const session: CkSession = {
    core,
    agent,
    events,
    finishes,
    runErrors,
    runFailures,
    coreErrors,
    async say(text) {
      agent.addMessage({ id: `u-${crypto.randomUUID()}`, role: "user", content: text });
      await session.run();
    },
    run: (params = {}) => quiet(() => core.runAgent({ agent, ...params })),
    connect: () => quiet(() => core.connectAgent({ agent })),
    since: (mark) => events.slice(mark),
    reply: () =>
      agent.messages
        .filter((m) => m.role === "assistant")
        .map((m) => (typeof m.content === "string" ? m.content : ""))
        .join(""),
    async answer(answers) {
      const asked = finishes.findLast((f) => f.outcome === "interrupt");
      if (!asked) throw new Error("no interrupt outcome to answer");
      const state = new lib.ɵInterruptState();
      state.setStandard(asked.interrupts as never);
      const kinds: string[] = [];
      let decision: InterruptDecision = { kind: "ignored" };
      for (const a of answers) {
        decision = ("cancel" in a ? state.cancel(a.id) : state.resolve(a.payload, a.id)) as InterruptDecision;
        kinds.push(decision.kind);
      }
      if (decision.kind === "resume") {
        for (const r of decision.toolResults ?? []) agent.addMessage({ id: crypto.randomUUID(), role: "tool", toolCallId: r.toolCallId, content: r.content });
        await session.run({ runId: asked.runId, resume: decision.resume });
      }
      return kinds;
    },
  };
  return session;
}
