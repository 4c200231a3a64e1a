/**
 * Order within one run: RUN_STARTED first; a text message, reasoning message, reasoning span or
 * tool call is started before its content and ended before RUN_FINISHED; exactly one terminal
 * event (RUN_FINISHED or RUN_ERROR) and nothing after it. One request asks for one run, so a
 * second RUN_STARTED in the same response fails here although the 1.0 verifier would allow it.
 * RUN_ERROR may cut open blocks: both clients accept it at any point, as an abort must be.
 * Chunk events (TEXT_MESSAGE_CHUNK, …) open and close themselves, so they need no bookkeeping
 * beyond lying inside the run; an explicit END for an id only chunks opened is refused, as the
 * clients refuse it.
 */
import { fail, pass, type Verdict } from "../types.ts";
import type { EventFrame } from "../sse-reader.ts";
import { streamed, type RuleSpec } from "./rule.ts";

interface Block {
  label: string;
  start: string;
  mids: string[];
  end: string;
  key: "messageId" | "toolCallId";
}

const BLOCKS: Block[] = [
  { label: "text message", start: "TEXT_MESSAGE_START", mids: ["TEXT_MESSAGE_CONTENT"], end: "TEXT_MESSAGE_END", key: "messageId" },
  { label: "tool call", start: "TOOL_CALL_START", mids: ["TOOL_CALL_ARGS"], end: "TOOL_CALL_END", key: "toolCallId" },
  { label: "reasoning message", start: "REASONING_MESSAGE_START", mids: ["REASONING_MESSAGE_CONTENT"], end: "REASONING_MESSAGE_END", key: "messageId" },
  { label: "reasoning span", start: "REASONING_START", mids: [], end: "REASONING_END", key: "messageId" },
];

const byType = new Map<string, { block: Block; role: "start" | "mid" | "end" }>();
for (const b of BLOCKS) {
  byType.set(b.start, { block: b, role: "start" });
  for (const m of b.mids) byType.set(m, { block: b, role: "mid" });
  byType.set(b.end, { block: b, role: "end" });
}

/** The first break of order in one run's frames, or undefined. */
export function lifecycleBreak(frames: readonly EventFrame[]): { detail: string; frame: string } | undefined {
  const events = frames.filter((f) => f.event);
  if (events.length === 0) return { detail: "the stream carried no events", frame: "" };
  const open = new Map<Block, Set<string>>(BLOCKS.map((b) => [b, new Set()]));
  let terminal: EventFrame | undefined;
  for (const [i, f] of events.entries()) {
    const e = f.event!;
    const at = (detail: string) => ({ detail, frame: f.block.raw });
    if (terminal) return at(`${e.type} after the terminal ${terminal.event!.type}: nothing may follow it`);
    if (i === 0 && e.type !== "RUN_STARTED") return at(`the first event is ${e.type}, not RUN_STARTED`);
    if (i > 0 && e.type === "RUN_STARTED") return at("a second RUN_STARTED in one run's response");
    if (e.type === "RUN_ERROR") terminal = f;
    if (e.type === "RUN_FINISHED") {
      for (const [b, ids] of open) {
        if (ids.size > 0) return at(`RUN_FINISHED while a ${b.label} is still open: ${[...ids].join(", ")} (no ${b.end})`);
      }
      terminal = f;
    }
    const kind = byType.get(e.type);
    if (!kind) continue;
    const id = String(e[kind.block.key]);
    const ids = open.get(kind.block)!;
    if (kind.role === "start") {
      if (ids.has(id)) return at(`${e.type} for ${kind.block.key} ${id}, which is already open`);
      ids.add(id);
    } else if (!ids.has(id)) {
      return at(`${e.type} for ${kind.block.key} ${id} before its ${kind.block.start} (or after its ${kind.block.end})`);
    } else if (kind.role === "end") ids.delete(id);
  }
  if (!terminal) return { detail: "the stream ended without RUN_FINISHED or RUN_ERROR", frame: events.at(-1)!.block.raw };
  return undefined;
}

export const lifecycle: RuleSpec = {
  name: "lifecycle",
  title:
    "RUN_STARTED first; every TEXT_MESSAGE_*, TOOL_CALL_*, REASONING_* block started before its content and ended before RUN_FINISHED; exactly one RUN_FINISHED or RUN_ERROR, and nothing after it.",
  check(ctx): Verdict {
    const runs = streamed(ctx);
    for (const run of runs) {
      const broken = lifecycleBreak(run.exchange.frames);
      if (broken) return fail(broken.detail, { scenario: run.scenario, frame: broken.frame });
    }
    return runs.length === 0 ? fail("no run answered with a stream") : pass(`${runs.length} runs in order`);
  },
};
