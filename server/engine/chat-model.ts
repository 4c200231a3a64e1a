/**
 * The engine's seam to the LLM: a model that streams deltas for one chat request. The real one
 * wraps the openai SDK (llm.ts); the agent loop knows nothing else about the provider.
 */
import type { ChatCompletionFunctionTool, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { AgentDefinition } from "../agents/define.ts";
import type { LlmDelta } from "./llm.ts";

export type ChatTool = ChatCompletionFunctionTool;

export interface ChatRequest {
  messages: ChatCompletionMessageParam[];
  tools: ChatTool[];
  signal: AbortSignal;
  /** Overrides the configured model for this request (AgentDefinition.model). */
  model?: string;
}

export interface ChatModel {
  streamChat(req: ChatRequest): AsyncIterable<LlmDelta>;
}

/** One model per agent, so an agent's `model` setting picks its model. */
export type ChatModelFactory = (agent: AgentDefinition) => ChatModel;
