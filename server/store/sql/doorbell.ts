/**
 * The NOTIFY doorbell: at most one per flush, sent inside the flush transaction so that it is
 * delivered on commit, never before the rows are visible. It names the threads touched, never
 * the events: a woken follower reads the rows after its cursor.
 */
import type { Statement } from "../db.ts";

/** NOTIFY payloads must stay under 8000 bytes; past this, ring for everyone instead. */
const MAX_PAYLOAD_BYTES = 7900;

export interface DoorbellPayload {
  /** the ringing store instance, so that it can ignore its own ring (it woke its followers already) */
  from: string;
  /** thread ids, or "*" for every follower */
  threads: string[] | "*";
}

export function encodeDoorbell(from: string, threadIds: readonly string[]): string {
  const payload = JSON.stringify({ from, threads: [...threadIds] } satisfies DoorbellPayload);
  if (Buffer.byteLength(payload) <= MAX_PAYLOAD_BYTES) return payload;
  return JSON.stringify({ from, threads: "*" } satisfies DoorbellPayload);
}

/** Anything unreadable counts as a ring for everyone: a spurious wake-up costs one read. */
export function decodeDoorbell(payload: string): DoorbellPayload {
  try {
    const p = JSON.parse(payload) as Partial<DoorbellPayload>;
    if (typeof p.from === "string" && (p.threads === "*" || Array.isArray(p.threads))) return p as DoorbellPayload;
  } catch {
    // fall through
  }
  return { from: "", threads: "*" };
}

/** The NOTIFY, as a statement of the flush transaction (Db.batch): delivered at its commit. */
export function ringDoorbell(channel: string, payload: string): Statement {
  return { text: `select pg_notify($1::text, $2::text)`, params: [channel, payload], name: "doorbell" };
}
