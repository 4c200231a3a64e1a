/**
 * Reading the SSE framing back: the one parser behind the browser client and every test that
 * reads a stream, so a change to the framing (protocol/sse.ts) is checked against one reader.
 *
 * Only the subset this server writes: blocks end at LF LF, fields are `id:` and `data:` (one
 * optional space after the colon), `:` lines are comments (keep-alives). Not the full WHATWG
 * algorithm (`event:`, `retry:`, CR line ends): a stray CR or an unknown field lands in
 * `other`, where the conformance tests can see it, instead of being silently absorbed.
 * Pure string work, no Node or DOM types, so the browser build and Node tests share it.
 */

export interface SseBlock {
  /** The block as sent, without its terminating blank line. */
  raw: string;
  /** True for a block of comment lines only (`: keep-alive`). */
  comment: boolean;
  id: string | undefined;
  /** The `data:` lines' values (one per line). */
  data: string[];
  /** Lines that are neither `id:`, `data:` nor comments. */
  other: string[];
}

function field(line: string, name: string): string | undefined {
  if (line === name) return "";
  if (!line.startsWith(`${name}:`)) return undefined;
  const v = line.slice(name.length + 1);
  return v.startsWith(" ") ? v.slice(1) : v;
}

export function parseSseBlock(raw: string): SseBlock {
  const lines = raw.split("\n");
  const block: SseBlock = { raw, comment: lines.every((l) => l.startsWith(":")), id: undefined, data: [], other: [] };
  for (const line of lines) {
    if (line.startsWith(":")) continue;
    const id = field(line, "id");
    const data = field(line, "data");
    if (id !== undefined) block.id = id;
    else if (data !== undefined) block.data.push(data);
    else block.other.push(line);
  }
  return block;
}

/** The block's data lines joined as the spec joins them; undefined for a block without data. */
export function sseData(block: SseBlock): string | undefined {
  return block.data.length === 0 ? undefined : block.data.join("\n");
}

/**
 * Cuts a stream of text into blocks as it arrives: `push` returns the blocks its text completed
 * (raw, without the blank line) and keeps the unterminated rest for the next call.
 */
export class SseSplitter {
  #rest = "";

  push(text: string): string[] {
    const parts = (this.#rest + text).split("\n\n");
    this.#rest = parts.pop() ?? "";
    return parts.filter((p) => p !== "");
  }

  /** Text after the last blank line: not yet (or never) a whole block. */
  get trailing(): string {
    return this.#rest;
  }
}
