/**
 * Live terminal output, bounded: a command's stdout and stderr reach ctx.terminal (durable
 * `terminal.output` events, CUSTOM "terminal" for clients) coalesced over TERMINAL_FLUSH_MS
 * (so at most 1000/TERMINAL_FLUSH_MS events a second per call, plus chunk splits), each event at
 * most TERMINAL_CHUNK_MAX_BYTES, and at most TERMINAL_STREAM_MAX_BYTES per call; past that one
 * notice says so and the rest is only in the tool's result (its kept head and tail).
 */

export const TERMINAL_FLUSH_MS = 50;
export const TERMINAL_CHUNK_MAX_BYTES = 8 * 1024;
export const TERMINAL_STREAM_MAX_BYTES = 1024 * 1024;

type Stream = "stdout" | "stderr";
export type TerminalSink = (data: string, stream: Stream) => Promise<void>;

/** Cuts `text` into pieces of at most `max` UTF-8 bytes, never inside a character. */
export function splitUtf8(text: string, max: number): string[] {
  const out: string[] = [];
  let piece = "";
  let bytes = 0;
  for (const ch of text) {
    const n = Buffer.byteLength(ch);
    if (bytes + n > max && piece !== "") {
      out.push(piece);
      piece = "";
      bytes = 0;
    }
    piece += ch;
    bytes += n;
  }
  if (piece !== "") out.push(piece);
  return out;
}

export class TerminalStream {
  #pending: { stream: Stream; text: string }[] = [];
  #timer: NodeJS.Timeout | undefined;
  #sent = 0;
  #capped = false;
  #chain: Promise<void> = Promise.resolve();

  constructor(private readonly sink: TerminalSink) {}

  push(stream: Stream, text: string): void {
    if (this.#capped) return;
    const last = this.#pending.at(-1);
    if (last && last.stream === stream) last.text += text;
    else this.#pending.push({ stream, text });
    this.#timer ??= setTimeout(() => this.#flush(), TERMINAL_FLUSH_MS);
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#pending;
    this.#pending = [];
    for (const { stream, text } of batch) {
      for (const piece of splitUtf8(text, TERMINAL_CHUNK_MAX_BYTES)) {
        if (this.#capped) return;
        const n = Buffer.byteLength(piece);
        if (this.#sent + n > TERMINAL_STREAM_MAX_BYTES) {
          this.#capped = true;
          this.#send(`\n[terminal stream stopped at ${TERMINAL_STREAM_MAX_BYTES} bytes; the tool's result keeps the output's head and tail]\n`, "stderr");
          return;
        }
        this.#sent += n;
        this.#send(piece, stream);
      }
    }
  }

  #send(data: string, stream: Stream): void {
    // In order; a sink that fails (the run is ending) ends the stream quietly.
    this.#chain = this.#chain.then(() => this.sink(data, stream)).catch(() => {
      this.#capped = true;
    });
  }

  /** Sends what is pending and waits for it. */
  async end(): Promise<void> {
    this.#flush();
    await this.#chain;
  }
}
