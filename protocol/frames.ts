/**
 * Frames: AG-UI events with an id derived from the log position, and the helpers every projection
 * shares (ids, the wire shape of messages, usage totals).
 *
 * Frame ids. A stored event at log position `seq` yields zero or more frames:
 * - exactly one frame: its id is `${seq}`;
 * - several frames:    `${seq}.0`, `${seq}.1`, ... in emission order.
 * The projection is deterministic, so an event always yields the same number of frames and the two
 * forms never meet for one seq. A bare `${seq}` therefore means "everything projected from seq is
 * seen", which is also how a cursor names a position a client learnt elsewhere (a snapshot taken
 * as of seq, the raw event log): `compareFrameIds` sorts it after every `${seq}.k`.
 * Rejected: a per-thread frame counter. It would be shorter, but a replay after retention has
 * compacted stream events away would renumber every later frame, and a cursor would point at the
 * wrong frame; log positions survive compaction.
 */
import {
  aggregateTokenUsage,
  contentToText,
  type AGUIEvent,
  type ContentPart,
  type Message,
  type TokenUsage,
} from "@ag-ui/core";
import type { ProtocolLevel } from "./versions.ts";

export interface Frame {
  /** SSE `id:` and resume cursor (see the scheme above). */
  id: string;
  event: AGUIEvent;
}

export interface FrameId {
  seq: number;
  /** Index among several frames of one event; null for a bare `${seq}` (the whole event). */
  part: number | null;
}

const FRAME_ID = /^(\d+)(?:\.(\d+))?$/;

/** Parses a frame id; undefined when it is not one (a client may send anything as Last-Event-ID). */
export function parseFrameId(id: string): FrameId | undefined {
  const m = FRAME_ID.exec(id.trim());
  if (!m) return undefined;
  const seq = Number(m[1]);
  if (!Number.isSafeInteger(seq)) return undefined;
  return { seq, part: m[2] === undefined ? null : Number(m[2]) };
}

/** Orders frame ids by log position; a bare `${seq}` sorts after every `${seq}.k`. */
export function compareFrameIds(a: string | FrameId, b: string | FrameId): number {
  const x = typeof a === "string" ? mustParse(a) : a;
  const y = typeof b === "string" ? mustParse(b) : b;
  if (x.seq !== y.seq) return x.seq - y.seq;
  if (x.part === y.part) return 0;
  if (x.part === null) return 1;
  if (y.part === null) return -1;
  return x.part - y.part;
}

function mustParse(id: string): FrameId {
  const parsed = parseFrameId(id);
  if (!parsed) throw new TypeError(`Not a frame id: '${id}'. Frame ids are '<seq>' or '<seq>.<k>'.`);
  return parsed;
}

/** Gives the events projected from one stored event their ids. */
export function framesAt(seq: number, events: readonly AGUIEvent[]): Frame[] {
  if (events.length === 1) return [{ id: `${seq}`, event: events[0]! }];
  return events.map((event, k) => ({ id: `${seq}.${k}`, event }));
}

/** A tool result's content as a stream of `level` sends it: parts in 1.0, text otherwise. */
export function toolContentFor(content: string | ContentPart[], level: ProtocolLevel): string | ContentPart[] {
  return level === "1.0" ? content : toolContentText(content);
}

/**
 * Tool message content as @ag-ui/client 0.0.59 accepts it: a string. 1.0 allows content parts,
 * 0.0.59 rejects them on TOOL_CALL_RESULT and in tool messages; the text parts concatenated is the
 * downgrade the 1.0 spec itself permits (core's `contentToText`). Rejected: JSON-encoding the parts,
 * which would show a UI a JSON array where it expects the tool's text.
 */
export function toolContentText(content: string | ContentPart[]): string {
  return typeof content === "string" ? content : contentToText(content);
}

/**
 * A message as a stream of `level` sends it (RUN_STARTED.input, MESSAGES_SNAPSHOT): a tool
 * message's content parts as they are in 1.0, as text otherwise (protocol/versions.ts).
 */
export function wireMessage(m: Message, level: ProtocolLevel = "legacy"): Message {
  // A subagent's message is attributed only where the run speaks 1.0 (project-subagents.ts).
  if (level === "legacy" && m.subagentRunId !== undefined) {
    const { subagentRunId: _child, ...plain } = m;
    return wireMessage(plain as Message, level);
  }
  if (m.role === "tool" && typeof m.content !== "string" && level === "legacy") return { ...m, content: toolContentText(m.content) };
  // The provider's opaque reasoning is the server's to send back to the provider, not the
  // clients' (0.0.59 knows no such field); the log keeps it.
  if (m.role === "reasoning" && m.encryptedValue !== undefined) {
    const { encryptedValue: _kept, ...shown } = m;
    return shown;
  }
  return m;
}

/**
 * One entry per (provider, model), counts summed. Built on core's aggregateTokenUsage, minus the
 * keys it leaves `undefined`: an absent count stays absent on the wire and in deep equality.
 */
export function sumUsage(entries: readonly TokenUsage[]): TokenUsage[] {
  return aggregateTokenUsage([...entries]).map(
    (u) => Object.fromEntries(Object.entries(u).filter(([, v]) => v !== undefined)) as TokenUsage,
  );
}
