/**
 * Reading a response body as the AG-UI clients read it, but keeping everything a report needs:
 * each block as sent, its fields, and what is wrong with it. Both @ag-ui/client versions split
 * on LF LF, read `data:` lines (one optional space after the colon), join several with LF and
 * ignore `id:`, `event:`, `retry:` and `:` comment lines; a CR breaks their JSON.parse. So a CR
 * is reported rather than normalised away (the WHATWG parser would accept it; the clients do not).
 */

export interface SseBlock {
  /** Position among the response's blocks, comments included. */
  index: number;
  /** The block as sent, without its terminating blank line. */
  raw: string;
  comment: boolean;
  id: string | undefined;
  data: string | undefined;
  /** Lines that are no SSE field at all (e.g. JSON written without `data:`). */
  stray: string[];
}

export interface AgUiEvent {
  type: string;
  [key: string]: unknown;
}

/** A data block and what its JSON made of it. */
export interface EventFrame {
  block: SseBlock;
  /** The parsed event, or undefined when the data is not a JSON object with a string `type`. */
  event: AgUiEvent | undefined;
  /** Why `event` is undefined. */
  error: string | undefined;
}

const KNOWN_FIELDS = ["data", "id", "event", "retry"];

function fieldOf(line: string): { name: string; value: string } | undefined {
  const colon = line.indexOf(":");
  const name = colon === -1 ? line : line.slice(0, colon);
  if (!KNOWN_FIELDS.includes(name)) return undefined;
  const rest = colon === -1 ? "" : line.slice(colon + 1);
  return { name, value: rest.startsWith(" ") ? rest.slice(1) : rest };
}

export function parseBlock(raw: string, index: number): SseBlock {
  const lines = raw.split("\n");
  const data: string[] = [];
  const block: SseBlock = { index, raw, comment: lines.every((l) => l.startsWith(":")), id: undefined, data: undefined, stray: [] };
  for (const line of lines) {
    if (line.startsWith(":")) continue;
    const f = fieldOf(line);
    if (!f) block.stray.push(line);
    else if (f.name === "data") data.push(f.value);
    else if (f.name === "id") block.id = f.value;
  }
  if (data.length > 0) block.data = data.join("\n");
  return block;
}

/** The blocks of a whole body. A last block without its blank line is kept: the clients parse it at the end too. */
export function splitBlocks(text: string): SseBlock[] {
  return text
    .split("\n\n")
    .filter((raw) => raw !== "")
    .map((raw, i) => parseBlock(raw.replace(/^\n+/, ""), i));
}

export function readEvent(block: SseBlock): EventFrame {
  if (block.data === undefined) return { block, event: undefined, error: "no data: line" };
  let value: unknown;
  try {
    value = JSON.parse(block.data);
  } catch (err) {
    return { block, event: undefined, error: `data is not JSON (${(err as Error).message})` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { block, event: undefined, error: "data is JSON but not an object" };
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== "string" || type === "") return { block, event: undefined, error: "the object has no string `type`" };
  return { block, event: value as AgUiEvent, error: undefined };
}

/** Every block that carries data, read as an event. */
export function eventFrames(blocks: readonly SseBlock[]): EventFrame[] {
  return blocks.filter((b) => b.data !== undefined).map(readEvent);
}
