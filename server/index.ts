/** The public surface for users who run Threadline with their own agents. */
export {
  defineAgent,
  defineTool,
  InterruptCancelledError,
  type AgentDefinition,
  type AgentInput,
  type InterruptAsk,
  type JsonSchemaObject,
  type JsonSchemaToolInput,
  type ToolContext,
  type ToolDefinition,
  type ZodToolInput,
} from "./agents/define.ts";
export { remoteAgent, type RemoteAgentInput } from "./agents/remote-agent.ts";
export { subagent, SubagentArgsSchema, SUBAGENT_TASK_MAX_CHARS, type SubagentOptions } from "./agents/subagent.ts";
export { aguiAgent, AGUI_AGENT_CODES, type AguiAgentInput, type AguiAgentObject } from "./agents/agui-agent.ts";
export {
  REMOTE_CONNECT_TIMEOUT_MS,
  REMOTE_EVENT_MAX_BYTES,
  REMOTE_READ_TIMEOUT_MS,
  type RemoteEndpoint,
} from "./agents/remote-endpoint.ts";
export { approvalsAgent, APPROVALS_AGENT_ID, type ApprovalsAgentOptions } from "./agents/approvals-agent.ts";
export {
  STATE_CONTEXT_MAX_BYTES,
  STATE_CONTEXT_MIN_BYTES,
  type PredictStateRule,
  type StateInContextOption,
} from "./agents/state-options.ts";
export { PREDICT_STATE_INTERVAL_MS } from "./engine/predicted-state.ts";
export { ConfigError, loadConfig, type Config } from "./config.ts";
export { StartupError, type StartupErrorCode } from "./startup-errors.ts";
export { createThreadline, type Threadline } from "./threadline.ts";
export { applyHttpTimeouts, DEFAULT_KEEP_ALIVE_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS, httpTimeouts, type HttpTimeouts } from "./http/server-timeouts.ts";
export {
  DEFAULT_DRAIN_TIMEOUT_MS,
  ThreadlineOptionsError,
  type DatabaseOption,
  type ThreadlineLimits,
  type ThreadlineOptions,
} from "./options.ts";
export type { AuthHook, AuthResult } from "./http/auth.ts";
export type { ApiKey } from "./tenant.ts";
export {
  aiSdkModel,
  createOpenAIClient,
  DemoModel,
  ModelError,
  OpenAIModel,
  parseModelSpec,
  resolveModel,
  type AiSdkModelOptions,
  type Model,
  type ModelErrorCode,
  type ModelFactory,
  type ModelMessage,
  type ModelPart,
  type ModelRequest,
  type ModelTool,
  type OpenAIModelOptions,
} from "./models/index.ts";
export {
  defaultWorkspaceHost,
  workspaceHostFromConfig,
  workspaceTools,
  WorkspaceToolError,
  type WorkspaceHost,
  type WorkspaceToolsOptions,
} from "./workspace/tools.ts";
export { codingAgent, CODING_SYSTEM_PROMPT, SYSTEM_PROMPT_MAX_CHARS, type CodingAgentOptions } from "./agents/coding-agent.ts";
export { COPILOTKIT_RUNTIME_INSTALL, CopilotkitRuntimeMissingError } from "./copilotkit/missing.ts";
export type { AgentRunnerOptions, AgentRunnerRequest, HeadersLike, RunnerQueueOptions, ThreadlineRunner } from "./copilotkit/app-runner-types.ts";
export { AGENT_EVENTS_MAX } from "./copilotkit/agent-events.ts";
export { RUNNER_QUEUE_DEFAULTS } from "./copilotkit/app-runner-turn.ts";
export { FOREIGN_EVENT_MAX_BYTES } from "../protocol/events.ts";
export type { EventStore } from "./store/types.ts";
export { SHUTDOWN_GRACE_MS } from "./engine/engine.ts";
export {
  ApprovalAnswerSchema,
  INTERRUPT_TOOL,
  INTERRUPT_TOOL_NAME,
  InterruptToolArgsSchema,
  type ApprovalAnswer,
  type InterruptToolArgs,
} from "../protocol/interrupts.ts";
export { verifyWebhookSignature } from "./webhooks/signature.ts";
export { memoryTools } from "./memory/tools.ts";
export type { MemoryEntry, MemoryQuery, TenantMemory } from "./memory/memory.ts";
