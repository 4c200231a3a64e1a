/**
 * An agent's AG-UI capabilities (@ag-ui/core AgentCapabilities), derived from its definition and
 * its model, never written per agent: GET /api/agents(/:id) serves them and CopilotKit's /info
 * forwards them (copilotkit/agent.ts getCapabilities). What each flag rests on:
 * - transport: SSE always; protobuf for clients that declare 1.x (protocol/sse.ts); resumable:
 *   every frame has an id and /connect resumes after it (Last-Event-ID or lastSeenEventId).
 * - tools: the agent's backend tools with their JSON Schemas; client tools are taken (a name
 *   clash is refused, http/agent-fit.ts); parallel calls of one model turn all run.
 * - state: every run opens with a STATE_SNAPSHOT; it lives in the thread's log, so it persists
 *   across runs. memory: the agent has the built-in memory tools (defineAgent's `memory`), which
 *   keep facts for every thread of its tenant (docs/memory.md). deltas: STATE_DELTA comes only from a backend tool's
 *   ctx.state.patch() or from predictState, so an agent with neither never sends one.
 * - reasoning: the engine streams whatever reasoning the model sends (REASONING_*), and every
 *   adapter (openai, ai-sdk, the demo model) passes it on; the provider's opaque reasoning stays on
 *   the server (frames.ts drops encryptedValue), so clients never get encrypted values.
 * - humanInTheLoop: frontend tools always. approvals: some tool's needsApproval can ask (true, a
 *   function, or an object whose `when` is not false). interrupts: the agent has a backend tool
 *   (any tool may call ctx.interrupt(), an approval is one; the answer comes back in
 *   RunAgentInput.resume). approveWithEdits = approvals: every approval takes `editedArgs`, checked
 *   against the tool's input schema at admission (engine/resume.ts) and run (tool-interrupts.ts).
 *   Rejected: a per-tool flag for edits; nothing refuses them, so the flag could only lie.
 * - multiAgent: the agent's subagent() tools (delegation, never a hand-off), named as clients see them.
 * - a remote agent (remoteAgent): identity type "remote"; its deltas and interrupts are the
 *   remote's, so both are declared; its own tools are not known here.
 * - multimodal.input: the model's media table (models/media-inputs.ts); undeclared when the
 *   model has none. `pdf` is the document part (PDFs among other documents); `file` (a kind no
 *   part type covers) is never taken.
 */
import type { AgentCapabilities, Tool } from "@ag-ui/core";
import type { Model } from "../models/model.ts";
import type { AgentDefinition, ToolDefinition } from "./define.ts";
import { toolJsonSchema } from "./tool-json-schema.ts";

/** Whether the tool's needsApproval can ever ask (a function is decided per call, so it can). */
function mayAskApproval(tool: ToolDefinition): boolean {
  const rule = tool.needsApproval;
  if (rule === undefined || typeof rule === "boolean") return rule === true;
  if (typeof rule === "function") return true;
  return rule.when !== false;
}

/**
 * multiAgent: declared when the agent hands work to subagents (its subagent() tools): delegation,
 * the agent keeps control; no hand-offs, the conversation never moves to another agent.
 */
function multiAgentOf(agent: AgentDefinition): Pick<AgentCapabilities, "multiAgent"> {
  const tools = agent.tools.filter((t) => t.subagent !== undefined);
  if (tools.length === 0) return {};
  return { multiAgent: { supported: true, delegation: true, handoffs: false, subagents: tools.map((t) => ({ name: t.name, description: t.description })) } };
}

export function agentCapabilities(agent: AgentDefinition, model: Model | null): AgentCapabilities {
  const tools: Tool[] = agent.tools.map((t) => ({ name: t.name, description: t.description, parameters: toolJsonSchema(t) }));
  const approvals = agent.tools.some(mayAskApproval);
  // A remote agent's tools and state writes are its own: it may send deltas and interrupts.
  const remote = agent.remote !== undefined;
  const deltas = remote || agent.tools.length > 0 || agent.predictState.length > 0;
  const media = model?.mediaInputs;
  return {
    identity: { name: agent.id, type: remote ? "remote" : "threadline", ...(agent.description && { description: agent.description }) },
    transport: { streaming: true, websocket: false, httpBinary: true, pushNotifications: false, resumable: true },
    tools: { supported: true, items: tools, parallelCalls: true, clientProvided: true },
    state: { snapshots: true, deltas, memory: agent.memory === true, persistentState: true },
    reasoning: { supported: true, streaming: true, encrypted: false },
    humanInTheLoop: { supported: true, approvals, interrupts: remote || agent.tools.length > 0, approveWithEdits: approvals },
    ...(media && {
      multimodal: {
        input: { image: media.image !== false, audio: media.audio !== false, video: media.video !== false, pdf: media.document !== false, file: false },
        output: { image: false, audio: false },
      },
    }),
    ...multiAgentOf(agent),
    execution: { maxIterations: agent.maxTurns },
  };
}
