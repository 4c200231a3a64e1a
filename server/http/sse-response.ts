/**
 * An SSE (or AG-UI protobuf) response as a resource owner: headers flushed before the first
 * frame, every write guarded against a closed socket, back-pressure honoured (a slow client
 * holds its own stream back, never the engine, which only appends to the log), and a comment
 * line after every 15 s of silence so proxies and load balancers keep the connection open.
 *
 * Construct it as soon as the request is known to be a stream candidate, before any await: it
 * listens for the close from then on, and notices a socket that closed even earlier (the 'close'
 * event of a response whose client left before the handler looked will never fire again). The
 * `threadline_sse_streams` gauge counts a stream from open() to its close, once each way.
 *
 * A client that takes nothing for SSE_DRAIN_TIMEOUT_MS while its socket is full is dropped: what
 * the stream holds (its buffered bytes, a shared reload snapshot) is freed, and the client, if it
 * was only stalled, resumes where it was with Last-Event-ID.
 */
import type { Request, Response } from "express";
import type { Frame } from "../../protocol/project.ts";
import { encodeFrame, encodeFrameBinary, KEEP_ALIVE, PROTO_MEDIA_TYPE, type WireFormat, wireFormat } from "../../protocol/sse.ts";
import type { ProtocolLevel } from "../../protocol/versions.ts";
import type { Metrics } from "../metrics.ts";
import type { EncodedFrames } from "./snapshot-cache.ts";

export const KEEP_ALIVE_MS = 15_000;

/**
 * How long a full socket may stay full (its client takes no byte) before the stream is dropped.
 * The kernel's buffers (megabytes on loopback, the window on a real network) are full by then, so
 * this is a client that stopped reading, not one on a slow link. A minute, as nginx's send_timeout:
 * long enough for a laptop waking up or a tab in the background to catch up. Rejected: no bound,
 * with which a client that never reads holds its stream's buffer and any shared snapshot for as
 * long as the TCP connection lives, which for a peer that still ACKs is forever.
 */
export const SSE_DRAIN_TIMEOUT_MS = 60_000;

/**
 * Pre-encoded bytes (a shared reload snapshot) go to the socket in slices of this size, each a
 * view of the shared bytes: a stream never has more than a slice and the socket's high-water mark
 * of them queued in Node, whatever the snapshot's size. Rejected: one write of the whole buffer,
 * which Node keeps whole in the socket's queue (writableLength = the snapshot) for a client that
 * does not read. 64 KiB: four times the socket's high-water mark, few enough writes for 30 MB.
 */
export const ENCODED_SLICE_BYTES = 64 * 1024;

export interface SseResponseOptions {
  metrics?: Metrics;
  keepAliveMs?: number;
  /** Force plain SSE (the raw event feed), whatever the Accept header names. */
  mode?: "sse";
  /** SSE_DRAIN_TIMEOUT_MS unless told (tests). */
  drainTimeoutMs?: number;
  /** What the client declared: protobuf only for a 1.x client (protocol/sse.ts wireFormat). */
  reader?: ProtocolLevel;
}

export class SseResponse {
  readonly #res: Response;
  readonly #mode: WireFormat;
  readonly #closed: AbortController = new AbortController();
  readonly #metrics: Metrics | undefined;
  #keepAlive: NodeJS.Timeout | undefined;
  #keepAliveMs: number;
  readonly #drainTimeoutMs: number;
  #lastWrite = 0;
  #counted = false;
  /** Frames handed to the socket whose bytes have not reached the kernel yet. */
  #buffered = 0;
  /** Bytes handed to the socket that have not reached the kernel yet. */
  #bufferedBytes = 0;
  #blocked = false;
  /** A cork is open until the end of this tick (#cork). */
  #corked = false;

  constructor(req: Request, res: Response, opts: SseResponseOptions = {}) {
    this.#res = res;
    this.#mode = opts.mode ?? wireFormat(req.get("accept"), opts.reader ?? "legacy");
    this.#metrics = opts.metrics;
    this.#keepAliveMs = opts.keepAliveMs ?? KEEP_ALIVE_MS;
    this.#drainTimeoutMs = opts.drainTimeoutMs ?? SSE_DRAIN_TIMEOUT_MS;
    res.once("close", () => this.#onClose());
    if (this.#isGone()) this.#onClose();
  }

  /** Aborted when the client goes away (or we end the response). */
  get signal(): AbortSignal {
    return this.#closed.signal;
  }

  /** What the client gets: SSE, or AG-UI protobuf when it asked for it. */
  get format(): WireFormat {
    return this.#mode;
  }

  /** Frames written but not yet flushed to the kernel: what this stream holds in memory now. */
  get bufferedFrames(): number {
    return this.#buffered;
  }

  /** Starts the stream (status 200, headers); nothing happens if the client has already left. */
  open(): void {
    if (this.#closed.signal.aborted) return;
    const res = this.#res;
    res.status(200);
    res.setHeader("Content-Type", this.#mode === "proto" ? PROTO_MEDIA_TYPE : "text/event-stream");
    res.setHeader("Cache-Control", "no-cache, no-transform");
    res.setHeader("Connection", "keep-alive");
    res.setHeader("X-Accel-Buffering", "no");
    res.flushHeaders();
    this.#counted = true;
    this.#metrics?.activeStreams.inc();
    this.#armKeepAlive();
  }

  /** Writes one frame; resolves when the socket can take more (or the client left). */
  async write(frame: Frame): Promise<void> {
    if (this.#closed.signal.aborted) return;
    const chunk = this.#mode === "proto" ? encodeFrameBinary(frame) : encodeFrame(frame);
    this.#metrics?.framesSent.inc();
    await this.#send(chunk, true);
  }

  /**
   * Writes frames already encoded in this stream's format (a reload snapshot shared with other
   * streams), a slice at a time with the same back-pressure as write(): the slices are views of
   * `encoded.bytes`, so the stream adds no copy of them, and a full socket holds one slice.
   */
  async writeEncoded(encoded: EncodedFrames): Promise<void> {
    if (this.#closed.signal.aborted) return;
    this.#metrics?.framesSent.inc(encoded.frames);
    const { bytes } = encoded;
    for (let at = 0; at < bytes.byteLength && !this.#closed.signal.aborted; at += ENCODED_SLICE_BYTES) {
      await this.#send(bytes.subarray(at, at + ENCODED_SLICE_BYTES), false);
    }
  }

  /** Writes an already encoded SSE chunk (the raw event feed); same back-pressure as write(). */
  async writeText(chunk: string): Promise<void> {
    if (this.#closed.signal.aborted) return;
    await this.#send(chunk, true);
  }

  end(): void {
    if (!this.#isGone()) this.#res.end();
    this.#onClose();
  }

  /**
   * Counts the frame until the socket has taken its bytes (the write callback), and waits for
   * 'drain' when the socket says it is full: the caller's next read of the log waits with it, so
   * a client that never reads costs one page of the log and the socket's high-water mark.
   */
  async #send(chunk: string | Uint8Array, frame: boolean): Promise<void> {
    this.#lastWrite = Date.now();
    const bytes = typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.byteLength;
    if (frame) {
      this.#buffered++;
      this.#metrics?.bufferedFrames.inc();
    }
    this.#bufferedBytes += bytes;
    this.#metrics?.bufferedBytes.inc(bytes);
    this.#cork();
    const ok = this.#res.write(chunk, () => this.#flushed(frame, bytes));
    if (!ok) await this.#drained();
  }

  /**
   * Frames written in one go (a page of a replay, whose writes chain through resolved promises)
   * leave in one writev at the end of the tick, not one socket write each; a live token, alone in
   * its tick, leaves at once. A full socket ends the chain (the wait for 'drain'), so the uncork
   * runs and the buffer drains. Rejected: building a page's frames into one string, which holds
   * a whole page of frames in memory for a client that reads nothing.
   */
  #cork(): void {
    if (this.#corked) return;
    this.#corked = true;
    this.#res.cork();
    process.nextTick(() => {
      this.#corked = false;
      this.#res.uncork();
    });
  }

  #flushed(frame: boolean, bytes: number): void {
    // After a close the counts were already given back in one go (callbacks may come late or not).
    if (this.#closed.signal.aborted) return;
    if (frame && this.#buffered > 0) {
      this.#buffered--;
      this.#metrics?.bufferedFrames.dec();
    }
    const taken = Math.min(bytes, this.#bufferedBytes);
    this.#bufferedBytes -= taken;
    this.#metrics?.bufferedBytes.dec(taken);
  }

  #isGone(): boolean {
    return this.#res.destroyed || this.#res.writableEnded;
  }

  /**
   * One timer per stream, ticking every half period: a comment goes out when the last write is
   * half a period old, so silence never reaches a whole period. Rejected: re-arming a timeout on
   * every frame, which cost a clearTimeout and a setTimeout per token. Nothing goes out while the
   * socket is full: the connection is not idle then, and the comment would only add to the buffer.
   */
  #armKeepAlive(): void {
    if (this.#mode !== "sse") return; // a comment is not a protobuf frame
    this.#lastWrite = Date.now();
    const half = Math.max(1, Math.floor(this.#keepAliveMs / 2));
    this.#keepAlive = setInterval(() => {
      if (this.#closed.signal.aborted || this.#blocked || Date.now() - this.#lastWrite < half) return;
      this.#lastWrite = Date.now();
      this.#res.write(KEEP_ALIVE);
    }, half);
    this.#keepAlive.unref();
  }

  #drained(): Promise<void> {
    if (this.#closed.signal.aborted) return Promise.resolve();
    this.#blocked = true;
    this.#metrics?.blockedStreams.inc();
    return new Promise((resolve) => {
      // Not unref'd: it is what frees the stream of a client that stopped reading.
      const timer = setTimeout(() => {
        this.#metrics?.droppedStreams.inc();
        this.#res.destroy(); // its 'close' runs #onClose, which aborts: done() follows
      }, this.#drainTimeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.#res.off("drain", done);
        this.#closed.signal.removeEventListener("abort", done);
        this.#blocked = false;
        this.#metrics?.blockedStreams.dec();
        resolve();
      };
      this.#res.on("drain", done);
      this.#closed.signal.addEventListener("abort", done, { once: true });
    });
  }

  /** Idempotent: the first of 'close', end() or a socket found closed frees everything. */
  #onClose(): void {
    clearInterval(this.#keepAlive);
    if (this.#closed.signal.aborted) return;
    this.#closed.abort();
    if (this.#counted) this.#metrics?.activeStreams.dec();
    this.#metrics?.bufferedFrames.dec(this.#buffered);
    this.#buffered = 0;
    this.#metrics?.bufferedBytes.dec(this.#bufferedBytes);
    this.#bufferedBytes = 0;
  }
}
