/**
 * An agent's AG-UI capabilities (@ag-ui/core AgentCapabilities), derived from its definition and
 * its model, never written per agent: GET /api/agents(/:id) serves them and CopilotKit's /info
 * forwards them (copilotkit/agent.ts getCapabilities). What each flag rests on:
 * - transport: SSE always; protobuf for clients that declare 1.x (protocol/sse.ts); resumable:
 *   every frame has an id and /connect resumes after it (Last-Event-ID or lastSeenEventId).
 * - tools: the agent's backend tools with their JSON Schemas; client tools are taken (a name
 *   clash is refused, http/agent-fit.ts); parallel calls of one model turn all run.
 * - state: every run opens with a STATE_SNAPSHOT and tools patch it (STATE_DELTA); it lives in
 *   the thread's log, so it persists across runs. No memory beyond the thread.
 * - reasoning: the engine streams whatever reasoning the model sends (REASONING_*); the provider's
 *   opaque reasoning stays on the server, so clients never get encrypted values.
 * - humanInTheLoop: frontend tools always; approvals when a tool is marked needsApproval;
 *   interrupts when the agent has a tool (any tool may call ctx.interrupt(), and the answer comes
 *   back in RunAgentInput.resume). approveWithEdits: false, the approval answer has no edits yet
 *   (nothing in a tool definition declares them).
 * - multimodal.input: the model's media table (models/media-inputs.ts); undeclared when the
 *   model has none. `pdf` is the document part (PDFs among other documents); `file` (a kind no
 *   part type covers) is never taken.
 */
import type { AgentCapabilities, Tool } from "@ag-ui/core";
import type { Model } from "../models/model.ts";
import { toolJsonSchema, type AgentDefinition } from "./define.ts";

export function agentCapabilities(agent: AgentDefinition, model: Model | null): AgentCapabilities {
  const tools: Tool[] = agent.tools.map((t) => ({ name: t.name, description: t.description, parameters: toolJsonSchema(t) }));
  const approvals = agent.tools.some((t) => t.needsApproval !== undefined && t.needsApproval !== false);
  const media = model?.mediaInputs;
  return {
    identity: { name: agent.id, type: "threadline", ...(agent.description && { description: agent.description }) },
    transport: { streaming: true, websocket: false, httpBinary: true, pushNotifications: false, resumable: true },
    tools: { supported: true, items: tools, parallelCalls: true, clientProvided: true },
    state: { snapshots: true, deltas: true, memory: false, persistentState: true },
    reasoning: { supported: true, streaming: true, encrypted: false },
    humanInTheLoop: { supported: true, approvals, interrupts: agent.tools.length > 0, approveWithEdits: false },
    ...(media && {
      multimodal: {
        input: { image: media.image !== false, audio: media.audio !== false, video: media.video !== false, pdf: media.document !== false, file: false },
        output: { image: false, audio: false },
      },
    }),
    execution: { maxIterations: agent.maxTurns },
  };
}
