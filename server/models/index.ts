/** The model layer's public surface: the neutral seam, its adapters and model selection. */
export type { AssistantContentPart, FinishReason, MediaSource, Model, ModelFactory, ModelMessage, ModelPart, ModelRequest, ModelTool, ToolContentPart, UserContentPart } from "./model.ts";
export { isModel, ModelMessageSchema, ModelPartSchema, ModelToolSchema } from "./model.ts";
export { ModelError, type ModelErrorCode } from "./errors.ts";
export { toModelMessages, MISSING_TOOL_RESULT } from "./from-agui.ts";
export { OpenAIModel, type OpenAIModelOptions } from "./openai/model.ts";
export { createOpenAIClient, type OpenAIClientOptions } from "./openai/client.ts";
export { aiSdkModel, type AiSdkModelOptions } from "./ai-sdk/model.ts";
export { DemoModel } from "./demo/demo-model.ts";
export { parseModelSpec, formatModelSpec, ModelSpecError, PROVIDERS, type ModelSpec, type ProviderName } from "./spec.ts";
export { resolveModel, ModelResolver, type ModelEnv } from "./resolve.ts";
export { modelsFromConfig, type Models, type ModelsFromConfigOptions } from "./from-config.ts";
