/**
 * The wire, read without any AG-UI client in between: supertest for whole responses (status,
 * headers, raw bytes, every SSE block as sent), and a fetch reader for frames as they arrive.
 */
import request from "supertest";
import { type ParsedSse, parseSse } from "../../support/sse-client.ts";
import { splitUrl } from "./target.ts";

export type { AguiEvent, ParsedSse, SseBlock } from "../../support/sse-client.ts";
export { parseSse };

/** A frame with the block it came in, so a test can check the bytes as sent. */
export type SseFrame = ParsedSse["frames"][number];

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  text: string;
  /** The JSON body, when the response is JSON. */
  json: unknown;
}

export interface PostOptions {
  /** An object is sent as JSON; a string or Buffer as is, with `contentType` (none if null). */
  body: unknown;
  contentType?: string | null;
  headers?: Record<string, string>;
}

/** POSTs with supertest and collects the raw bytes, whatever the content type. */
export async function post(url: string, opts: PostOptions): Promise<RawResponse> {
  const { origin, path } = splitUrl(url);
  let req = request(origin).post(path);
  for (const [k, v] of Object.entries(opts.headers ?? {})) req = req.set(k, v);
  // superagent serialises a Buffer as JSON when the type is JSON, and gives a bare string a form
  // type: so a typed raw body goes as a string, an untyped one as a Buffer.
  const raw = typeof opts.body === "string" || Buffer.isBuffer(opts.body);
  if (raw && opts.contentType) {
    req = req.set("Content-Type", opts.contentType).send(String(opts.body));
  } else if (raw) {
    req = req.send(Buffer.isBuffer(opts.body) ? opts.body : Buffer.from(opts.body as string));
  } else {
    if (opts.contentType) req = req.set("Content-Type", opts.contentType);
    req = req.send(opts.body as object);
  }
  const res = await req.buffer(true).parse((stream, done) => {
    const chunks: Buffer[] = [];
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("end", () => done(null, Buffer.concat(chunks)));
    stream.on("error", (err: Error) => done(err, null));
  });
  const body = res.body as Buffer;
  const text = body.toString("utf8");
  const headers = res.headers as Record<string, string>;
  let json: unknown;
  if ((headers["content-type"] ?? "").includes("json")) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  return { status: res.status, headers, body, text, json };
}

/** POSTs a run and parses the SSE body. */
export async function postRun(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await post(url, { body, headers: { Accept: "text/event-stream", ...headers } });
  return { ...res, sse: parseSse(res.text) };
}

export interface LiveStream {
  response: Response;
  /** Resolves with the next frame, or undefined at the end of the stream. */
  next(): Promise<SseFrame | undefined>;
  /** Reads frames until `pred` holds for one; returns it (throws at the end of the stream). */
  until(pred: (f: SseFrame) => boolean): Promise<SseFrame>;
  /** Everything left, to the end. */
  rest(): Promise<SseFrame[]>;
  cancel(): Promise<void>;
}

/** POSTs a run with fetch and hands its frames over one by one, as they arrive. */
export async function openRun(url: string, body: unknown, headers: Record<string, string> = {}): Promise<LiveStream> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
  if (!response.ok || !response.body) throw new Error(`POST ${url}: HTTP ${response.status} ${await response.text()}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let unread = "";
  const queue: SseFrame[] = [];
  let ended = false;
  const next = async (): Promise<SseFrame | undefined> => {
    for (;;) {
      if (queue.length > 0) return queue.shift();
      if (ended) return undefined;
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        continue;
      }
      const parsed = parseSse(unread + value);
      unread = parsed.trailing;
      queue.push(...parsed.frames);
    }
  };
  return {
    response,
    next,
    async until(pred) {
      for (;;) {
        const f = await next();
        if (!f) throw new Error("the stream ended before the awaited frame");
        if (pred(f)) return f;
      }
    },
    async rest() {
      const out: SseFrame[] = [];
      for (let f = await next(); f; f = await next()) out.push(f);
      return out;
    },
    cancel: () => reader.cancel().catch(() => {}),
  };
}
