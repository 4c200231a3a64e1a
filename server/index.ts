/** The public surface for users who run Threadline with their own agents. */
export {
  defineAgent,
  defineTool,
  InterruptCancelledError,
  type AgentDefinition,
  type InterruptAsk,
  type ToolContext,
  type ToolDefinition,
} from "./agents/define.ts";
export { approvalsAgent, APPROVALS_AGENT_ID, type ApprovalsAgentOptions } from "./agents/approvals-agent.ts";
export {
  STATE_CONTEXT_MAX_BYTES,
  STATE_CONTEXT_MIN_BYTES,
  type PredictStateRule,
  type StateInContextOption,
} from "./agents/state-options.ts";
export { PREDICT_STATE_INTERVAL_MS } from "./engine/predicted-state.ts";
export { loadConfig, type Config } from "./config.ts";
export { createThreadline, type Threadline, type ThreadlineOptions } from "./threadline.ts";
export {
  ApprovalAnswerSchema,
  INTERRUPT_TOOL,
  INTERRUPT_TOOL_NAME,
  InterruptToolArgsSchema,
  type ApprovalAnswer,
  type InterruptToolArgs,
} from "../protocol/interrupts.ts";
