/**
 * The systems under test as the drivers see them: where to POST a run, how to connect to a
 * thread, how to cancel one. A system that has no such route leaves it out, and the metrics
 * that need it show "—" for that system.
 */
import type { LockWatch } from "./lock-sampler.ts";
import type { Child } from "./processes.ts";

export type Role = "floor" | "peer" | "threadline";

export interface Endpoint {
  url: string;
  body?: unknown;
  method?: "POST" | "GET";
}

export interface System {
  key: string;
  label: string;
  role: Role;
  child: Child;
  run(threadId: string, runId: string, prompt: string): Endpoint;
  /** Replay (with a cursor: exactly what followed it) then the live tail. */
  connect?(threadId: string, cursor?: string): Endpoint;
  cancel?(threadId: string): Endpoint;
  /** The thread's messages and state as JSON (a page reload's first request). */
  thread?(threadId: string): Endpoint;
  /** Lock waits in the system's database schema during a scenario (Threadline on Postgres). */
  locks?: LockWatch;
}

/** A complete AG-UI RunAgentInput: every system parses the same body. */
export function runInput(threadId: string, runId: string, prompt: string) {
  return {
    threadId,
    runId,
    state: {},
    messages: [{ id: `${runId}-u`, role: "user", content: prompt }],
    tools: [],
    context: [],
    forwardedProps: {},
  };
}

export function floorSystem(child: Child): System {
  const base = `http://127.0.0.1:${child.port}`;
  return {
    key: "floor",
    label: "floor (Express+openai+encoder)",
    role: "floor",
    child,
    run: (threadId, runId, prompt) => ({ url: `${base}/run`, body: runInput(threadId, runId, prompt) }),
  };
}

export function copilotkitSystem(child: Child): System {
  const base = `http://127.0.0.1:${child.port}/api/copilotkit`;
  return {
    key: "copilotkit",
    label: "CopilotKit runtime (in-memory)",
    role: "peer",
    child,
    run: (threadId, runId, prompt) => ({ url: `${base}/agent/default/run`, body: runInput(threadId, runId, prompt) }),
    // The runtime's connect takes a RunAgentInput and replays the thread's whole history; it has no cursor.
    connect: (threadId) => ({ url: `${base}/agent/default/connect`, body: runInput(threadId, `connect-${threadId}`, "") }),
    cancel: (threadId) => ({ url: `${base}/agent/default/stop/${encodeURIComponent(threadId)}` }),
  };
}

/** Mastra has no connect, cancel or thread route (mastra.ts says why): runs only. */
export function mastraSystem(child: Child): System {
  const base = `http://127.0.0.1:${child.port}`;
  return {
    key: "mastra",
    label: "Mastra (@ag-ui/mastra, no memory)",
    role: "peer",
    child,
    run: (threadId, runId, prompt) => ({ url: `${base}/run`, body: runInput(threadId, runId, prompt) }),
  };
}

export function threadlineSystem(child: Child, backend: "postgres" | "pglite"): System {
  const base = `http://127.0.0.1:${child.port}/api`;
  return {
    key: `tl-${backend}`,
    label: `Threadline (${backend === "postgres" ? "Postgres" : "PGlite"})`,
    role: "threadline",
    child,
    run: (threadId, runId, prompt) => ({ url: `${base}/agents/default/run`, body: runInput(threadId, runId, prompt) }),
    connect: (threadId, cursor) => ({ url: `${base}/agents/default/connect`, body: cursor ? { threadId, lastSeenEventId: cursor } : { threadId } }),
    cancel: (threadId) => ({ url: `${base}/threads/${encodeURIComponent(threadId)}/cancel` }),
    thread: (threadId) => ({ url: `${base}/threads/${encodeURIComponent(threadId)}`, method: "GET" }),
  };
}
