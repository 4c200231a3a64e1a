/**
 * The public surface of protocol/: the workflow event vocabulary, the lifecycle rules (statuses, transitions, run ends), the
 * projection to AG-UI frames, snapshot reconstruction and wire framing. Pure code, no I/O.
 */
export * from "./events.ts";
export { SubagentEndedSchema, SubagentOutcomeSchema, SubagentStartedSchema } from "./subagent-events.ts";
export { SubagentRunIdSchema } from "./event-shape.ts";
export { SUBAGENT_CUSTOM_EVENT } from "./project-subagents.ts";
export * from "./lifecycle.ts";
export { ThreadStatusSchema } from "./status.ts";
export * from "./interrupts.ts";
export { compareFrameIds, parseFrameId, toolContentText, wireMessage, sumUsage, type Frame, type FrameId } from "./frames.ts";
export { Projector, project, framesAfter } from "./project.ts";
export { applyStatePatch, type StatePatch } from "./state.ts";
export {
  reconstruct,
  reloadCut,
  messagesSnapshotFrames,
  snapshotRunFrames,
  type ReconstructOptions,
  type ThreadSnapshot,
  type ToolCallState,
  type ToolCallStatus,
} from "./reconstruct.ts";
export {
  KEEP_ALIVE,
  PROTO_MEDIA_TYPE,
  SSE_MEDIA_TYPE,
  contentTypeOf,
  encodeBinary,
  encodeFrame,
  encodeFrameBinary,
  negotiate,
  type WireFormat,
} from "./sse.ts";
export { isRequestId, REQUEST_ID_MAX_CHARS, RequestIdSchema } from "./request-id.ts";
export { parseTraceContext, type TraceContext, TraceContextSchema, TRACESTATE_MAX_CHARS } from "./trace-context.ts";
