/**
 * The one place an `openai` client is built, with the two timeouts a streaming call needs:
 *
 * - connect timeout: how long to wait for the response headers (one attempt). It is the SDK's
 *   own `timeout`, whose timer the SDK clears as soon as `fetch` resolves with the headers.
 * - read timeout: how long the body may stay silent while we wait for the next chunk. The SDK
 *   has no such setting, so a fetch wrapper times every read of the body; on expiry it cancels
 *   the body, which closes the upstream connection, and fails the read with
 *   UpstreamReadTimeoutError. It counts raw bytes, not parsed events, so a provider's SSE
 *   keep-alive comments (OpenRouter sends `: OPENROUTER PROCESSING` while a model thinks)
 *   keep a slow but live stream open.
 *
 * The client is built on its first request, when the SDK (an optional peer: sdk.ts) is imported;
 * a missing SDK fails that request with the command to run.
 */
import type OpenAI from "openai";
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import type { OpenAIChatClient } from "./chat-client.ts";
import { loadOpenAISdk } from "./sdk.ts";

/** The SDK's logger, in our terms (its type is the SDK's own, which an install may not have). */
export interface OpenAIClientLogger {
  error(message: string, ...rest: unknown[]): void;
  warn(message: string, ...rest: unknown[]): void;
  info(message: string, ...rest: unknown[]): void;
  debug(message: string, ...rest: unknown[]): void;
}

export interface OpenAIClientOptions {
  /** The /v1 base URL of any OpenAI-compatible provider; OpenAI's own when absent. */
  baseURL?: string;
  apiKey: string;
  /** Upper bound on the wait for response headers, per attempt. */
  connectTimeoutMs?: number;
  /** Upper bound on the silence between two chunks of the response body. */
  readTimeoutMs?: number;
  /**
   * Retries on connection errors, timeouts to headers, 408/409/429 and 5xx. They all happen
   * before the first byte of a response reaches us, so a retry never duplicates a delta.
   */
  maxRetries?: number;
  logger?: OpenAIClientLogger;
}

export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

export function createOpenAIClient(opts: OpenAIClientOptions): OpenAIChatClient {
  let client: Promise<OpenAI> | undefined;
  const sdkClient = () => {
    if (!client) {
      client = loadOpenAISdk().then((sdk) => newClient(sdk.default, opts));
      // A failed load is not cached: the next request tries again.
      client.catch(() => (client = undefined));
    }
    return client;
  };
  return {
    chat: {
      completions: {
        create: async (body, options) => (await sdkClient()).chat.completions.create(body as ChatCompletionCreateParamsStreaming, options),
      },
    },
  };
}

function newClient(SDK: typeof OpenAI, opts: OpenAIClientOptions): OpenAI {
  const { connectTimeoutMs = 30_000, readTimeoutMs = 60_000, maxRetries = 2 } = opts;
  return new SDK({
    // Passed explicitly: without it the SDK reads OPENAI_BASE_URL from the environment itself,
    // and configuration is read once, at the edge (server/config.ts).
    baseURL: opts.baseURL ?? OPENAI_DEFAULT_BASE_URL,
    apiKey: opts.apiKey,
    timeout: connectTimeoutMs,
    maxRetries,
    fetch: withReadTimeout(globalThis.fetch, readTimeoutMs),
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
}

/** The body of a response went silent for longer than the read timeout. */
export class UpstreamReadTimeoutError extends Error {
  override readonly name = "UpstreamReadTimeoutError";
  constructor(readonly timeoutMs: number) {
    super(`no data from the model for ${timeoutMs} ms`);
  }
}

type Fetch = typeof globalThis.fetch;

/** A fetch whose response bodies fail with UpstreamReadTimeoutError when they stall. */
export function withReadTimeout(fetchImpl: Fetch, readTimeoutMs: number): Fetch {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    if (response.body === null) return response;
    const wrapped = new Response(timedBody(response.body, readTimeoutMs), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    // `new Response` cannot take a url; the SDK reads it for its logs and errors.
    Object.defineProperty(wrapped, "url", { value: response.url });
    return wrapped;
  };
}

/**
 * The timer runs only while a read is pending, so a consumer that is slow to pull (say, one
 * waiting on Postgres) is never mistaken for a silent upstream.
 */
function timedBody(source: ReadableStream<Uint8Array>, ms: number): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let failed = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const timer = setTimeout(() => {
        failed = true;
        const err = new UpstreamReadTimeoutError(ms);
        controller.error(err);
        // The upstream body is abandoned: its cancel settles with the error we just gave the
        // consumer, which already owns it.
        void reader.cancel(err).then(undefined, () => undefined);
      }, ms);
      try {
        const { done, value } = await reader.read();
        if (failed) return;
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (err) {
        if (!failed) controller.error(err);
      } finally {
        clearTimeout(timer);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
