/**
 * Where a remote agent runs (remoteAgent, remote-agent.ts): a leaf both the agent contract
 * (define.ts) and the engine (engine/foreign/remote-run.ts) import, so neither reaches into the other.
 */

/** How long Threadline waits for the remote's response headers, by default: 30 s. */
export const REMOTE_CONNECT_TIMEOUT_MS = 30_000;
/** How long the remote may stay silent (no byte, not even a keep-alive comment), by default: 120 s. */
export const REMOTE_READ_TIMEOUT_MS = 120_000;
/** The bounds either timeout may be given within: 1 ms to 1 hour. */
export const REMOTE_TIMEOUT_MAX_MS = 60 * 60 * 1000;
/** The largest single SSE event a remote may send (UTF-8 bytes of its data): 1 MB. */
export const REMOTE_EVENT_MAX_BYTES = 1024 * 1024;

export interface RemoteEndpoint {
  /** The remote's AG-UI run endpoint: RunAgentInput is POSTed to it. */
  url: string;
  /** Sent with every request (an API key of the remote, say); never logged. */
  headers: Record<string, string>;
  timeouts: {
    /** Until the response's status and headers arrive. */
    connectMs: number;
    /** Between two reads of the stream once it flows. */
    readMs: number;
  };
}
