/**
 * An SSE (or AG-UI protobuf) response as a resource owner: headers flushed before the first
 * frame, every write guarded against a closed socket, back-pressure honoured (a slow client
 * holds its own stream back, never the engine, which only appends to the log), and a comment
 * line after every 15 s of silence so proxies and load balancers keep the connection open.
 */
import type { Request, Response } from "express";
import type { Frame } from "../../protocol/project.ts";
import { encodeFrame, encodeFrameBinary, KEEP_ALIVE, negotiate, PROTO_MEDIA_TYPE } from "../../protocol/sse.ts";
import type { Metrics } from "../metrics.ts";

export const KEEP_ALIVE_MS = 15_000;

export class SseResponse {
  readonly #res: Response;
  readonly #mode: "sse" | "proto";
  readonly #closed: AbortController = new AbortController();
  readonly #metrics: Metrics | undefined;
  #keepAlive: NodeJS.Timeout | undefined;
  #keepAliveMs: number;
  #lastWrite = 0;

  constructor(req: Request, res: Response, opts: { metrics?: Metrics; keepAliveMs?: number } = {}) {
    this.#res = res;
    this.#mode = negotiate(req.get("accept"));
    this.#metrics = opts.metrics;
    this.#keepAliveMs = opts.keepAliveMs ?? KEEP_ALIVE_MS;
    res.on("close", () => this.#onClose());
  }

  /** Aborted when the client goes away (or we end the response). */
  get signal(): AbortSignal {
    return this.#closed.signal;
  }

  open(): void {
    const res = this.#res;
    res.status(200);
    res.setHeader("Content-Type", this.#mode === "proto" ? PROTO_MEDIA_TYPE : "text/event-stream");
    res.setHeader("Cache-Control", "no-cache, no-transform");
    res.setHeader("Connection", "keep-alive");
    res.setHeader("X-Accel-Buffering", "no");
    res.flushHeaders();
    this.#metrics?.activeStreams.inc();
    this.#armKeepAlive();
  }

  /** Writes one frame; resolves when the socket can take more. */
  async write(frame: Frame): Promise<void> {
    if (this.#isGone()) return;
    const chunk = this.#mode === "proto" ? encodeFrameBinary(frame) : encodeFrame(frame);
    this.#metrics?.framesSent.inc();
    this.#lastWrite = Date.now();
    if (!this.#res.write(chunk)) await this.#drained();
  }

  end(): void {
    clearInterval(this.#keepAlive);
    if (!this.#isGone()) this.#res.end();
  }

  #isGone(): boolean {
    return this.#res.destroyed || this.#res.writableEnded;
  }

  /**
   * One timer per stream, ticking every half period: a comment goes out when the last write is
   * half a period old, so silence never reaches a whole period. Rejected: re-arming a timeout on
   * every frame, which cost a clearTimeout and a setTimeout per token.
   */
  #armKeepAlive(): void {
    if (this.#mode !== "sse") return; // a comment is not a protobuf frame
    this.#lastWrite = Date.now();
    const half = Math.max(1, Math.floor(this.#keepAliveMs / 2));
    this.#keepAlive = setInterval(() => {
      if (this.#isGone() || Date.now() - this.#lastWrite < half) return;
      this.#lastWrite = Date.now();
      this.#res.write(KEEP_ALIVE);
    }, half);
    this.#keepAlive.unref();
  }

  #drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.#res.off("drain", done);
        this.#res.off("close", done);
        resolve();
      };
      this.#res.on("drain", done);
      this.#res.on("close", done);
    });
  }

  #onClose(): void {
    clearInterval(this.#keepAlive);
    if (!this.#closed.signal.aborted) {
      this.#metrics?.activeStreams.dec();
      this.#closed.abort();
    }
  }
}
