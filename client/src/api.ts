/**
 * Threadline's REST surface as the app uses it. When the server has API_KEYS, the key is kept
 * in localStorage (`threadline.apiKey`, or `?apiKey=` once in the URL) and sent as a bearer token.
 */
import type { ThreadStatus } from "../../protocol/lifecycle.ts";

export type { ThreadStatus };

export interface ThreadRow {
  threadId: string;
  agentId: string;
  status: ThreadStatus;
  activeRunId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ToolCallInfo {
  name: string;
  status: "running" | "complete" | "failed";
  result?: unknown;
}

export interface ThreadDetail extends ThreadRow {
  messages: unknown[];
  state: unknown;
  toolCalls: Record<string, ToolCallInfo>;
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

const KEY = "threadline.apiKey";

function apiKey(): string | null {
  const fromUrl = new URLSearchParams(location.search).get("apiKey");
  if (fromUrl) localStorage.setItem(KEY, fromUrl);
  return localStorage.getItem(KEY);
}

export function authHeaders(): Record<string, string> {
  const key = apiKey();
  return key ? { Authorization: `Bearer ${key}` } : {};
}

async function json<T>(res: Response): Promise<T> {
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    throw new Error(body?.error?.message ?? `${res.status} ${res.statusText}`);
  }
  return (await res.json()) as T;
}

export async function listThreads(limit = 50): Promise<ThreadRow[]> {
  const res = await fetch(`/api/threads?limit=${limit}`, { headers: authHeaders() });
  return (await json<{ threads: ThreadRow[] }>(res)).threads;
}

/** null while the thread has no run yet (the server creates it with its first run). */
export async function getThread(threadId: string): Promise<ThreadDetail | null> {
  const res = await fetch(`/api/threads/${encodeURIComponent(threadId)}`, { headers: authHeaders() });
  if (res.status === 404) return null;
  return json<ThreadDetail>(res);
}

export async function cancelThread(threadId: string): Promise<void> {
  const res = await fetch(`/api/threads/${encodeURIComponent(threadId)}/cancel`, { method: "POST", headers: authHeaders() });
  await json<unknown>(res);
}
