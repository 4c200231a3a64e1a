/**
 * Threadline's REST surface as the app uses it. When the server has API_KEYS, the key (keys.ts)
 * goes with every request, and a 401 is reported there so that the app asks for one.
 */
import type { AttachmentLimits } from "../../protocol/attachments.ts";
import type { ThreadStatus } from "../../protocol/lifecycle.ts";
import { authHeaders, type KeyProblem, reportUnauthorized } from "./keys.ts";

export { authHeaders };
import type { ToolCallReason, ToolCallState } from "../../protocol/tool-status.ts";

export type { ThreadStatus };

export interface ThreadRow {
  threadId: string;
  agentId: string;
  status: ThreadStatus;
  activeRunId: string | null;
  /** The position of the thread's last event: changes whenever anything was written. */
  lastSeq: number;
  createdAt: string;
  updatedAt: string;
}

/** A thread as GET /api/threads lists it: a title, and whether it is archived or waits for an answer. */
export interface ThreadListItem extends ThreadRow {
  /** the name given, else the start of the first user message; null: neither yet */
  title: string | null;
  titleSet: boolean;
  archived: boolean;
  /** WAITING for an approval, a question's answer or a frontend tool's result */
  waitingForYou: boolean;
}

/** What became of a tool call, from the log (protocol/tool-status.ts). */
export interface ToolCallInfo {
  name: string;
  status: ToolCallState;
  reason?: ToolCallReason;
  result?: unknown;
}

/** A message as the thread view returns it (AG-UI's shape; only what the app reads is typed). */
export interface ThreadMessage {
  id: string;
  role: string;
  content?: unknown;
  [field: string]: unknown;
}

/** A branch of the thread: `main`, or one forked from `fromBranchId` after `keepThrough`. */
export interface BranchInfo {
  branchId: string;
  fromBranchId?: string;
  keepThrough?: string | null;
}

/** The thread view: the list's row (title, archived, waiting for you) and what the log rebuilds. */
export interface ThreadDetail extends ThreadListItem {
  messages: ThreadMessage[];
  state: unknown;
  toolCalls: Record<string, ToolCallInfo>;
  /** The thread's current branch and all its branches, oldest first. */
  branch: string;
  branches: BranchInfo[];
}

/** An agent the server hosts (GET /api/agents). */
export interface AgentInfo {
  id: string;
  description?: string;
}

/** A raw workflow event, as GET /api/threads/:id/events streams it. */
export interface WorkflowEvent {
  threadId: string;
  seq: number;
  runId: string | null;
  type: string;
  data: Record<string, unknown>;
  at: string | number;
}

/** The server refused the key (401): `problem` says whether none was sent or it was wrong. */
export class UnauthorizedError extends Error {
  override readonly name = "UnauthorizedError";
  constructor(readonly problem: KeyProblem) {
    super(problem === "missing" ? "This server needs an API key." : "The API key was refused.");
  }
}

async function json<T>(res: Response): Promise<T> {
  if (res.status === 401) throw new UnauthorizedError(reportUnauthorized());
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    throw new Error(body?.error?.message ?? `${res.status} ${res.statusText}`);
  }
  return (await res.json()) as T;
}

export async function listThreads(limit = 50, filter: { q?: string; archived?: boolean } = {}): Promise<ThreadListItem[]> {
  const query = new URLSearchParams({ limit: String(limit) });
  if (filter.q) query.set("q", filter.q);
  if (filter.archived) query.set("archived", "true");
  const res = await fetch(`/api/threads?${query}`, { headers: authHeaders() });
  return (await json<{ threads: ThreadListItem[] }>(res)).threads;
}

/** Renames (title null: back to the derived one) and/or archives a thread. */
export async function patchThread(threadId: string, change: { title?: string | null; archived?: boolean }): Promise<ThreadListItem> {
  const res = await fetch(`/api/threads/${encodeURIComponent(threadId)}`, {
    method: "PATCH",
    headers: { ...authHeaders(), "Content-Type": "application/json" },
    body: JSON.stringify(change),
  });
  return json<ThreadListItem>(res);
}

export async function deleteThread(threadId: string): Promise<void> {
  const res = await fetch(`/api/threads/${encodeURIComponent(threadId)}`, { method: "DELETE", headers: authHeaders() });
  if (!res.ok) await json<unknown>(res);
}

/** GET /api/agents: the agents, and what a message may attach (protocol/attachments.ts). */
export interface AgentDirectory {
  agents: AgentInfo[];
  attachments: AttachmentLimits;
}

export async function listAgents(): Promise<AgentDirectory> {
  const res = await fetch("/api/agents", { headers: authHeaders() });
  return json<AgentDirectory>(res);
}

/** null while the thread has no run yet (the server creates it with its first run). */
export async function getThread(threadId: string): Promise<ThreadDetail | null> {
  const res = await fetch(`/api/threads/${encodeURIComponent(threadId)}`, { headers: authHeaders() });
  if (res.status === 404) return null;
  return json<ThreadDetail>(res);
}

/** The messages of one branch of the thread (`?branch=`); a branch left behind never changes. */
export async function getBranchMessages(threadId: string, branchId: string): Promise<ThreadMessage[]> {
  const res = await fetch(`/api/threads/${encodeURIComponent(threadId)}?branch=${encodeURIComponent(branchId)}`, { headers: authHeaders() });
  return (await json<ThreadDetail>(res)).messages;
}

export async function cancelThread(threadId: string): Promise<void> {
  const res = await fetch(`/api/threads/${encodeURIComponent(threadId)}/cancel`, { method: "POST", headers: authHeaders() });
  await json<unknown>(res);
}

/** The shared state as one tool call left it (after its result, or at its run's end); `done: false` while its run goes on. */
export async function getStateAtCall(threadId: string, toolCallId: string): Promise<{ done: boolean; state: unknown }> {
  const res = await fetch(`/api/threads/${encodeURIComponent(threadId)}/state?toolCallId=${encodeURIComponent(toolCallId)}`, { headers: authHeaders() });
  return json<{ done: boolean; state: unknown }>(res);
}
