/**
 * One POST to a remote AG-UI endpoint, read as the events it streams (parsed JSON, not yet
 * checked: ingest.ts does that). Every way the remote can fail becomes a RunFailure whose code
 * names it, with a sentence saying what to do:
 *   REMOTE_UNREACHABLE  the connection failed (refused, DNS, TLS, reset before the response)
 *   REMOTE_HTTP_ERROR   a status other than 2xx (the start of its body is quoted)
 *   REMOTE_MALFORMED    not text/event-stream, an event that is not JSON, one over REMOTE_EVENT_MAX_BYTES
 *   REMOTE_TIMEOUT      no response within connectMs, or silence past readMs once it streams
 *   REMOTE_DISCONNECTED the stream broke off mid-run
 * The run's signal aborts the request (cancel, lease lost, shutdown): the remote sees the
 * connection close, which is how AG-UI servers learn that a client went away.
 *
 * The SSE reader takes what the WHATWG format allows that remotes send: LF, CRLF or CR line ends
 * (Python's sse-starlette writes CRLF), `event:`, `id:` and `retry:` fields (ignored: AG-UI
 * carries the type in the JSON), comment lines, and data split over several `data:` lines.
 */
import type { RemoteEndpoint } from "../../agents/remote-endpoint.ts";
import { REMOTE_EVENT_MAX_BYTES } from "../../agents/remote-endpoint.ts";
import { RunFailure } from "../errors.ts";

/** What a line holds besides its data ("data: ", a CR): the unfinished line may exceed the bound by this. */
const LINE_SLACK_BYTES = 16;

/** How much of an error response's body the RUN_ERROR quotes. */
const ERROR_BODY_QUOTE_CHARS = 300;

/** `traceHeaders`: the run's W3C trace context, over the endpoint's own headers (a fixed traceparent there would join every run to one trace). */
export async function* remoteEvents(endpoint: RemoteEndpoint, input: unknown, signal: AbortSignal, traceHeaders: Record<string, string> = {}): AsyncGenerator<unknown, void, undefined> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  let timedOut: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  const arm = (ms: number, what: string) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = what;
      controller.abort(new Error(what));
    }, ms);
  };
  const { connectMs, readMs } = endpoint.timeouts;
  try {
    arm(connectMs, `did not answer within ${connectMs} ms (timeouts.connectMs)`);
    let res: Response;
    try {
      res = await fetch(endpoint.url, {
        method: "POST",
        headers: { ...endpoint.headers, ...traceHeaders, "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify(input),
        signal: controller.signal,
      });
    } catch (err) {
      if (signal.aborted) return;
      if (timedOut) throw timeout(endpoint, timedOut, err);
      throw new RunFailure("REMOTE_UNREACHABLE", `The remote agent at ${endpoint.url} could not be reached (${causeOf(err)}). Check that it is running and that this server can reach it, then send your message again.`, { cause: err });
    }
    if (!res.ok) {
      const body = (await res.text().catch(() => "")).slice(0, ERROR_BODY_QUOTE_CHARS);
      throw new RunFailure("REMOTE_HTTP_ERROR", `The remote agent at ${endpoint.url} answered HTTP ${res.status}${body ? `: ${body}` : ""}. Check its logs and its configuration (url, headers), then send your message again.`);
    }
    const type = res.headers.get("content-type") ?? "";
    if (!type.toLowerCase().startsWith("text/event-stream")) {
      await res.body?.cancel().catch(() => undefined);
      throw new RunFailure("REMOTE_MALFORMED", `The remote agent at ${endpoint.url} answered with content-type "${type}", not text/event-stream: is the url its AG-UI endpoint?`);
    }
    if (!res.body) return;
    arm(readMs, `was silent for ${readMs} ms (timeouts.readMs)`);
    const reader = new SseEvents();
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        arm(readMs, `was silent for ${readMs} ms (timeouts.readMs)`);
        for (const data of reader.push(decoder.decode(chunk, { stream: true }))) yield parse(endpoint, data);
      }
    } catch (err) {
      if (signal.aborted) return;
      if (err instanceof RunFailure) throw err;
      if (timedOut) throw timeout(endpoint, timedOut, err);
      throw new RunFailure("REMOTE_DISCONNECTED", `The connection to the remote agent at ${endpoint.url} broke off mid-run (${causeOf(err)}): it may have crashed or restarted. Send your message again.`, { cause: err });
    }
    for (const data of reader.push(`${decoder.decode()}\n\n`)) yield parse(endpoint, data);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
    controller.abort(); // the consumer stopped early (the run's end was read): the remote sees the close
  }
}

function parse(endpoint: RemoteEndpoint, data: string): unknown {
  try {
    return JSON.parse(data);
  } catch (err) {
    throw new RunFailure("REMOTE_MALFORMED", `The remote agent at ${endpoint.url} sent an event that is not JSON (${causeOf(err)}): ${data.slice(0, 120)}. Fix the agent's event encoding, then send your message again.`, { cause: err });
  }
}

function timeout(endpoint: RemoteEndpoint, what: string, cause: unknown): RunFailure {
  return new RunFailure("REMOTE_TIMEOUT", `The remote agent at ${endpoint.url} ${what}. Check that it is healthy (or raise the timeout in remoteAgent's timeouts), then send your message again.`, { cause });
}

function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

/** SSE text in, each event's data out (events without data, and comments, yield nothing). */
export class SseEvents {
  #buffer = "";
  #data: string[] = [];
  #bytes = 0;

  push(text: string): string[] {
    this.#buffer += text;
    const out: string[] = [];
    // A CR at the very end may be the first half of a CRLF: it waits for the next chunk.
    const lines = this.#buffer.split(/\r\n|\r(?!$)|\n/);
    this.#buffer = lines.pop() ?? "";
    for (const line of lines) {
      if (line === "") {
        if (this.#data.length > 0) out.push(this.#data.join("\n"));
        this.#data = [];
        this.#bytes = 0;
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const name = colon === -1 ? line : line.slice(0, colon);
      if (name !== "data") continue;
      const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
      this.#bytes += Buffer.byteLength(value) + 1;
      if (this.#bytes > REMOTE_EVENT_MAX_BYTES) throw tooLarge();
      this.#data.push(value);
    }
    // The line still arriving: its field name and line end may take it past the bound by a little.
    if (Buffer.byteLength(this.#buffer) > REMOTE_EVENT_MAX_BYTES + LINE_SLACK_BYTES) throw tooLarge();
    return out;
  }
}

function tooLarge(): RunFailure {
  return new RunFailure("REMOTE_MALFORMED", `The remote agent sent an event larger than ${REMOTE_EVENT_MAX_BYTES} bytes, the most one event may carry. Send large data by reference (a URL, an id), not in the stream.`);
}
