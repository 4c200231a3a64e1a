/**
 * The demo model's answer when a tool it called failed: it says which and what the tool said,
 * rather than the follow-up it gives a success ("All 4 steps of the plan … are done" after a
 * run_plan that threw). A failed call's result is what the engine sends the model for it: its
 * error in words on the first line ("Error: <message>", server/models/from-agui.ts, for a
 * backend tool that threw and a frontend tool that failed alike), then what the tool message
 * holds (server/engine/tool-task.ts: JSON with the `error`, and `approval: "denied"` when the
 * person said no). A result that is only that JSON counts too. Tried before every other
 * follow-up, the feature demos' included, since none of those answers is true of a failed call.
 */
import type { DemoChatRequest, DemoFixture } from "./fixture.ts";
import { type AnsweredCall, answeredCalls, parseObject } from "./request.ts";

interface Failed {
  name: string;
  error: string;
  denied: boolean;
}

/** The calls answered since the last user message whose result is a failure, in call order. */
export function failedCalls(req: DemoChatRequest): Failed[] {
  if (req.messages.at(-1)?.role !== "tool") return [];
  return answeredCalls(req).flatMap((call: AnsweredCall) => {
    const said = /^Error: (.*)/.exec(call.result);
    const result = parseObject(said ? call.result.slice(said[0].length).trim() : call.result);
    const error = said?.[1] ?? (typeof result.error === "string" ? result.error : undefined);
    return error === undefined ? [] : [{ name: call.name, error, denied: result.approval === "denied" }];
  });
}

function line(f: Failed): string {
  if (f.denied) return `\`${f.name}\` was not approved, so it did not run.`;
  // The engine's message starts "<tool> failed: "; the tool's own words are what follows.
  const said = f.error.startsWith(`${f.name} failed: `) ? f.error.slice(f.name.length + 9) : f.error;
  return `\`${f.name}\` failed: ${said.replace(/[.\s]+$/, "")}.`;
}

export function failureAnswer(req: DemoChatRequest): string {
  const failed = failedCalls(req);
  const others = answeredCalls(req).length - failed.length;
  const what =
    failed.length === 1 ? `That did not work: ${line(failed[0]!)}` : `${failed.length} of the tools did not work:\n\n${failed.map((f) => `- ${line(f)}`).join("\n")}`;
  const rest = others === 0 ? "I" : `${others === 1 ? "The other call" : `The other ${others} calls`} worked, but I`;
  return `${what}\n\n${rest} have not finished what you asked: try again, or ask for something else.`;
}

export function toolFailureFixtures(): DemoFixture[] {
  return [{ match: { predicate: (req) => failedCalls(req).length > 0 }, response: (req) => ({ content: failureAnswer(req) }) }];
}
