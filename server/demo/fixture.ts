/**
 * The demo script's shapes, our own: a request as the OpenAI Chat Completions API would receive
 * it (what the scripts' predicates read), and a fixture that answers it. They are the subset of
 * aimock's `ChatCompletionRequest` and `Fixture` the scripts use, so the same fixtures also run
 * inside aimock, where the tests serve them as an OpenAI-compatible upstream
 * (test/support/demo-upstream.ts). Rejected: importing aimock's types, which would make the
 * published declarations name a package the install does not have.
 */

/** A content part of a message, as Chat Completions writes it; the scripts read `text` only. */
export interface DemoContentPart {
  type: string;
  text?: string;
}

export interface DemoToolCallRef {
  id: string;
  type?: string;
  function: { name: string; arguments: string };
}

export interface DemoChatMessage {
  role: string;
  content: string | DemoContentPart[] | null;
  tool_calls?: DemoToolCallRef[];
  tool_call_id?: string;
}

export interface DemoChatTool {
  type: string;
  function: { name: string; description?: string; parameters?: unknown };
}

/** The Chat Completions request body the scripts match on (server/models/openai/messages.ts builds it). */
export interface DemoChatRequest {
  model: string;
  messages: DemoChatMessage[];
  tools?: DemoChatTool[];
}

/** A tool call the demo makes; without an id, one is minted per answer. */
export interface DemoToolCall {
  id?: string;
  name: string;
  /** The arguments as JSON text. */
  arguments: string;
}

/** What the demo streams: reasoning first, then text, then tool calls (each part optional). */
export interface DemoAnswer {
  reasoning?: string;
  content?: string;
  toolCalls?: DemoToolCall[];
}

/** The demo failing as an overloaded provider would: an HTTP status and OpenAI's error body. */
export interface DemoFailure {
  error: { message: string; type?: string };
  status: number;
}

export type DemoResponse = DemoAnswer | DemoFailure;

/** The first fixture whose predicate passes (or that has none) answers the request. */
export interface DemoFixture {
  match: { predicate?: (req: DemoChatRequest) => boolean };
  response: DemoResponse | ((req: DemoChatRequest) => DemoResponse);
}

export function isDemoFailure(response: DemoResponse): response is DemoFailure {
  return "error" in response;
}
