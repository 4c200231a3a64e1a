/**
 * The conversation probes: a second turn that resends the first one's messages, and a frontend
 * tool round trip. Whether a model calls a tool is its choice: a run without the call makes the
 * round trip inconclusive (unsupported), never failed.
 */
import { fail, pass, unsupported, type Verdict } from "../types.ts";
import { answered, events, KIT_TOOL, type KitRun } from "../scenarios.ts";
import type { CheckContext, RuleSpec } from "./rule.ts";

const find = (ctx: CheckContext, scenario: KitRun["scenario"]) => ctx.runs.find((r) => r.scenario === scenario);

/** Why a run did not end well, or undefined: non-2xx, RUN_ERROR, or no RUN_FINISHED. */
function badEnd(run: KitRun): Verdict | undefined {
  const at = { scenario: run.scenario };
  if (run.exchange.status < 200 || run.exchange.status >= 300) return fail(`HTTP ${run.exchange.status}: ${run.exchange.text.slice(0, 300)}`, at);
  const error = run.exchange.frames.find((f) => f.event?.type === "RUN_ERROR");
  if (error) return fail("the run ended in RUN_ERROR", { ...at, frame: error.block.raw });
  if (!events(run).some((e) => e.type === "RUN_FINISHED")) return fail("the run did not reach RUN_FINISHED", at);
  return undefined;
}

export const multiTurn: RuleSpec = {
  name: "multi-turn",
  title: "A second run that resends the first run's messages (user, assistant answer, new user message) is answered and finishes.",
  check(ctx) {
    const chat = find(ctx, "chat");
    const second = find(ctx, "multi-turn");
    if (chat && !second) return unsupported("the first run gave no assistant message to send back, so there was no history to send");
    if (!second) return unsupported("not run");
    const bad = badEnd(second);
    if (bad) return bad;
    if (!answered(second)) return fail("the second run finished without any assistant text", { scenario: second.scenario });
    return pass(`history of ${second.input.messages.length} messages accepted and answered`);
  },
};

export const frontendTool: RuleSpec = {
  name: "frontend-tool",
  title:
    "A tool sent in the request is called with TOOL_CALL_START/ARGS/END and no result from the server, the run finishes, and a run carrying the tool result is answered.",
  check(ctx) {
    const first = find(ctx, "frontend-tool");
    if (!first) return unsupported("not run");
    const bad = badEnd(first);
    if (bad) return bad;
    const start = first.exchange.frames.find((f) => f.event?.type === "TOOL_CALL_START" && f.event.toolCallName === KIT_TOOL.name);
    const chunk = first.exchange.frames.find((f) => f.event?.type === "TOOL_CALL_CHUNK" && f.event.toolCallName === KIT_TOOL.name);
    const call = start ?? chunk;
    if (!call) return unsupported(`inconclusive: the model did not call ${KIT_TOOL.name} (it may have answered in words instead)`);
    const id = call.event!.toolCallId;
    const result = first.exchange.frames.find((f) => f.event?.type === "TOOL_CALL_RESULT" && f.event.toolCallId === id);
    if (result) return fail("the server answered a frontend tool call itself; the client executes tools it sends", { scenario: first.scenario, frame: result.block.raw });
    const args = first.exchange.frames
      .filter((f) => (f.event?.type === "TOOL_CALL_ARGS" || f.event?.type === "TOOL_CALL_CHUNK") && f.event.toolCallId === id)
      .map((f) => String(f.event!.delta ?? ""))
      .join("");
    try {
      if (args.trim() !== "") JSON.parse(args);
    } catch {
      return fail(`the call's arguments are not JSON: ${JSON.stringify(args.slice(0, 120))}`, { scenario: first.scenario, frame: call.block.raw });
    }
    const second = find(ctx, "tool-result");
    if (!second) return unsupported("inconclusive: the call could not be answered");
    const bad2 = badEnd(second);
    if (bad2) return bad2;
    if (answered(second)) return pass(`called ${KIT_TOOL.name}, then answered after its result`);
    if (events(second).some((e) => e.type === "TOOL_CALL_START" || e.type === "TOOL_CALL_CHUNK")) {
      return unsupported("inconclusive: after the result the model called a tool again instead of answering");
    }
    return fail("the run carrying the tool result finished without any assistant text", { scenario: second.scenario });
  },
};
