/**
 * What the openai adapter needs of a client, in our own terms: a streamed Chat Completions
 * request. The SDK's own `OpenAI` client satisfies it (test/llm/stream.test.ts passes one, so tsc
 * checks that), and so does createOpenAIClient's, which loads the SDK on its first request. Rejected:
 * the SDK's types in the adapter's signature, which would make the published declarations name
 * an optional peer that an install may not have.
 */

/** One fragment of a streamed tool call. */
export interface ChatChunkToolCall {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

export interface ChatChunkUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
  prompt_tokens_details?: { cached_tokens?: number } | null;
}

/** A chunk of the stream, with the fields providers put reasoning in (DeepSeek/vLLM, OpenRouter). */
export interface ChatChunk {
  choices: {
    delta: {
      content?: string | null;
      tool_calls?: ChatChunkToolCall[];
      reasoning_content?: string | null;
      reasoning?: string | null;
      reasoning_details?: Record<string, unknown>[] | null;
    };
    finish_reason: string | null;
  }[];
  usage?: ChatChunkUsage | null;
}

/** The request body the adapter sends; messages and tools as openai/messages.ts builds them. */
export interface ChatStreamBody {
  model: string;
  messages: unknown[];
  tools?: unknown[];
  stream: true;
  stream_options?: { include_usage?: boolean } | null;
}

export interface OpenAIChatClient {
  chat: {
    completions: {
      /** Aborting `signal` closes the connection; the stream then ends or throws. `headers` join the client's own. */
      create(body: ChatStreamBody, options: { signal: AbortSignal; headers?: Record<string, string> }): PromiseLike<AsyncIterable<ChatChunk>>;
    };
  };
}
