/**
 * The demo upstream's frames carry whole code points. aimock slices what it streams (text,
 * reasoning, each tool call's arguments) every `chunkSize` UTF-16 code units, so an emoji at an
 * unlucky offset of the user's words (which the demo scripts echo) went out as two frames, each
 * with half of its surrogate pair. This mount sees every chat-completions request first and
 * returns false, so aimock still answers it; on the way out, each `data:` frame whose delta would
 * end in a high surrogate leaves that half to the next delta of the same field, through the same
 * StorableTextStream the engine's model seam uses. Slices stay `chunkSize` units long, give or
 * take the one unit moved.
 *
 * Rejected: re-slicing in the demo Model after the openai adapter (tests and tools that talk to
 * the upstream directly would still see split pairs), our own chat-completions handler built from
 * aimock's exported builders (a copy of aimock's fixture handling), and a patched aimock.
 * This relies on aimock writing one frame per `res.write` call (its sse-writer does); a frame
 * written any other way passes through unchanged, and the engine's own rule still keeps the
 * run alive.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Mountable } from "@copilotkit/aimock";
import { StorableTextStream } from "../../server/store/storable-text.ts";

/** Where aimock serves OpenAI chat completions; the mount sees only these requests. */
export const CHAT_COMPLETIONS_PATH = "/v1/chat/completions";

interface FrameDelta {
  content?: unknown;
  reasoning_content?: unknown;
  reasoning?: unknown;
  tool_calls?: { index?: number; function?: { arguments?: unknown } }[];
}

/** The delta fields of one response, each a stream of its own. */
class WholeCodePointFrames {
  readonly #fields = new Map<string, StorableTextStream>();

  #whole(key: string, value: unknown): unknown {
    if (typeof value !== "string") return value;
    const stream = this.#fields.get(key) ?? new StorableTextStream();
    this.#fields.set(key, stream);
    return stream.push(value);
  }

  rewrite(frame: string): string {
    if (!frame.startsWith("data: {") || !frame.endsWith("\n\n")) return frame;
    let chunk: { choices?: { index?: number; delta?: FrameDelta }[] };
    try {
      chunk = JSON.parse(frame.slice("data: ".length, -2)) as typeof chunk;
    } catch {
      return frame; // not a JSON frame of ours to fix
    }
    for (const choice of chunk.choices ?? []) {
      const d = choice.delta;
      if (!d) continue;
      const at = choice.index ?? 0;
      if ("content" in d) d.content = this.#whole(`${at}:content`, d.content);
      if ("reasoning_content" in d) d.reasoning_content = this.#whole(`${at}:reasoning_content`, d.reasoning_content);
      if ("reasoning" in d) d.reasoning = this.#whole(`${at}:reasoning`, d.reasoning);
      for (const [pos, call] of (d.tool_calls ?? []).entries()) {
        if (call.function && "arguments" in call.function) call.function.arguments = this.#whole(`${at}:tool:${call.index ?? pos}`, call.function.arguments);
      }
    }
    return `data: ${JSON.stringify(chunk)}\n\n`;
  }
}

export function wholeCodePoints(): Mountable {
  return {
    async handleRequest(_req: IncomingMessage, res: ServerResponse): Promise<boolean> {
      const frames = new WholeCodePointFrames();
      const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
      res.write = ((chunk: unknown, ...rest: unknown[]) => write(typeof chunk === "string" ? frames.rewrite(chunk) : chunk, ...rest)) as typeof res.write;
      return false; // aimock answers
    },
  };
}
