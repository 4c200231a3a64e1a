/** Small helpers shared by the durability tests: the thread API, waiting on the log, id masking. */
import type { Message } from "@ag-ui/core";
import type { StoredEvent } from "../../../protocol/events.ts";
import type { ToolCallStatus } from "../../../protocol/reconstruct.ts";
import type { EventStore } from "../../../server/store/types.ts";
import { AGENT_ID } from "./script.ts";

export interface ThreadView {
  threadId: string;
  status: string;
  activeRunId: string | null;
  messages: Message[];
  state: unknown;
  toolCalls: Record<string, ToolCallStatus>;
}

export const runUrl = (base: string, agent = AGENT_ID) => `${base}/api/agents/${agent}/run`;
export const connectUrl = (base: string, agent = AGENT_ID) => `${base}/api/agents/${agent}/connect`;

export async function getThread(base: string, threadId: string): Promise<ThreadView> {
  const res = await fetch(`${base}/api/threads/${encodeURIComponent(threadId)}`);
  if (res.status !== 200) throw new Error(`GET thread ${threadId}: ${res.status} ${await res.text()}`);
  return (await res.json()) as ThreadView;
}

/** Resolves with the first event of the thread's log (already there or yet to come) that matches. */
export async function untilEvent(
  store: EventStore,
  threadId: string,
  match: (e: StoredEvent) => boolean,
  timeoutMs = 20_000,
): Promise<StoredEvent> {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), timeoutMs);
  try {
    for await (const batch of store.follow(threadId, 0, stop.signal)) {
      const hit = batch.find(match);
      if (hit) return hit;
    }
    throw new Error(`no matching event in thread ${threadId} within ${timeoutMs} ms`);
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
}

/**
 * A JSON value with the ids that differ between two runs of the same script masked: message,
 * tool-call, thread and run ids become their order of first appearance, timestamps go away.
 * Two runs that streamed the same frames mask to the same value.
 */
export function maskIds<T>(value: T): unknown {
  const names = new Map<string, string>();
  const name = (kind: string, id: string) => {
    const key = `${kind}:${id}`;
    if (!names.has(key)) names.set(key, `<${kind}${[...names.keys()].filter((k) => k.startsWith(`${kind}:`)).length}>`);
    return names.get(key)!;
  };
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === "string") {
      return v
        .replace(/msg-[0-9a-f-]{36}/g, (m) => name("msg", m))
        .replace(/activity-call_[0-9a-f]+/g, (m) => name("act", m));
    }
    if (v === null || typeof v !== "object") return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === "timestamp") continue;
      if ((k === "threadId" || k === "runId") && typeof x === "string") out[k] = name(k, x);
      else out[k] = walk(x);
    }
    return out;
  };
  return walk(value);
}
