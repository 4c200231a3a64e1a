/**
 * Wire framing of frames, through @ag-ui/encoder so that what we send is what the SDK's own
 * servers send (1.0's encoder also drops top-level optional nulls).
 *
 * SSE: `id: <frame id>\ndata: <one-line JSON>\n\n`, LF only (CRLF breaks both clients' parsers).
 * The `id:` line is ignored by HttpAgent and used by EventSource-style clients and our connect
 * route as the resume cursor. Protobuf (length-prefixed, no ids: the format has no place for one)
 * only when the client names `application/vnd.ag-ui.event+proto` explicitly AND declares a 1.x
 * protocolVersion (wireFormat): a schema before 1.0 (@ag-ui/proto 0.0.59) has no message for
 * TOOL_CALL_RESULT, REASONING_* or ACTIVITY_*, so such a client could not decode a run that
 * used a backend tool or reasoned; it gets SSE, which its client reads as well (the content type
 * says which). Rejected: protobuf per event type (a stream is one format), and dropping the
 * events a schema lacks (a silent loss). The encoder's own
 * negotiation picks protobuf for `*\/*`, which is curl's default and would hand a terminal binary;
 * rejected for that reason, as the AG-UI aws-strands endpoint also does.
 */
import { omitOptionalNulls } from "@ag-ui/core";
import { AGUI_MEDIA_TYPE, EventEncoder } from "@ag-ui/encoder";
import type { Frame } from "./frames.ts";
import { jsonPieces } from "./json-pieces.ts";
import type { ProtocolLevel } from "./versions.ts";

export const SSE_MEDIA_TYPE = "text/event-stream";
export const PROTO_MEDIA_TYPE: string = AGUI_MEDIA_TYPE;

/** A comment line: keeps proxies from timing the connection out; clients ignore it. */
export const KEEP_ALIVE = ": keep-alive\n\n";

export type WireFormat = "sse" | "proto";

const sse = new EventEncoder();
const proto = new EventEncoder({ accept: AGUI_MEDIA_TYPE });

export function encodeFrame(frame: Frame): string {
  return `${idLine(frame)}${sse.encodeSSE(frame.event)}`;
}

function idLine(frame: Frame): string {
  if (/[\r\n]/.test(frame.id)) throw new TypeError(`A frame id cannot contain a line break: ${JSON.stringify(frame.id)}`);
  return `id: ${frame.id}\n`;
}

/** One length-prefixed protobuf message (4-byte big-endian length, then the bytes). */
export function encodeBinary(frame: Frame): Uint8Array {
  return proto.encodeBinary(frame.event);
}
/** Alias kept for callers that name the pair encodeFrame / encodeFrameBinary. */
export const encodeFrameBinary = encodeBinary;

const utf8 = new TextEncoder();

/**
 * What a stream sends: a wire format, or SSE without `id:` lines, as CopilotKit's runtime writes
 * its streams (its clients never saw ids; a reload served in its place sends what it would).
 */
export type Encoding = WireFormat | "sse-without-ids";

/**
 * Frames as the bytes a stream of `encoding` sends for them, one after the other: what a reload
 * snapshot shared by several streams is encoded into once (server/http/snapshot-cache.ts).
 */
export function encodeFrames(frames: readonly Frame[], encoding: Encoding): Uint8Array {
  if (encoding === "sse") return utf8.encode(frames.map(encodeFrame).join(""));
  if (encoding === "sse-without-ids") return utf8.encode(frames.map((f) => sse.encodeSSE(f.event)).join(""));
  const parts = frames.map(encodeBinary);
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/**
 * The text encodeFrames gives frames in an SSE encoding, in pieces (json-pieces.ts): a reload's
 * MESSAGES_SNAPSHOT is the whole conversation, and its one JSON.stringify was one block of the
 * loop as long as the thread. The encoder's own rule comes first (omitOptionalNulls, as
 * encodeSSE does), so the joined pieces are its text (test/protocol/sse.test.ts).
 */
export function* framesPieces(frames: readonly Frame[], encoding: Exclude<Encoding, "proto">): Generator<string, void, undefined> {
  for (const frame of frames) {
    if (encoding === "sse") yield idLine(frame);
    yield "data: ";
    yield* jsonPieces(omitOptionalNulls(frame.event, "Event"));
    yield "\n\n";
  }
}

export function contentTypeOf(format: WireFormat): string {
  return format === "proto" ? PROTO_MEDIA_TYPE : SSE_MEDIA_TYPE;
}

/**
 * "proto" only if the Accept header names the AG-UI protobuf type itself with q > 0, and no
 * equally or more preferred explicit `text/event-stream` (a tie goes to SSE, the format every
 * client reads). Wildcards (`*\/*`, `application/*`) never select protobuf; a missing header is SSE.
 */
export function negotiate(accept: string | null | undefined): WireFormat {
  if (!accept) return "sse";
  let protoQ = 0;
  let sseQ = 0;
  for (const range of accept.split(",")) {
    const [type = "", ...params] = range.split(";").map((s) => s.trim().toLowerCase());
    const q = qualityOf(params);
    if (type === AGUI_MEDIA_TYPE) protoQ = Math.max(protoQ, q);
    else if (type === SSE_MEDIA_TYPE) sseQ = Math.max(sseQ, q);
  }
  return protoQ > 0 && protoQ > sseQ ? "proto" : "sse";
}

/**
 * The format a stream is sent in: protobuf when the Accept header asks for it (negotiate) and the
 * client declared a 1.x protocolVersion, whose schema knows every event this server sends; SSE
 * otherwise.
 */
export function wireFormat(accept: string | null | undefined, reader: ProtocolLevel): WireFormat {
  return reader === "1.0" ? negotiate(accept) : "sse";
}

function qualityOf(params: readonly string[]): number {
  for (const p of params) {
    const [k, v] = p.split("=").map((s) => s.trim());
    if (k === "q") {
      const q = Number(v);
      return Number.isFinite(q) ? Math.min(Math.max(q, 0), 1) : 0;
    }
  }
  return 1;
}
