/**
 * The demo model's answer when a tool it called failed: it says which and what the tool said,
 * rather than the follow-up it gives a success ("All 4 steps of the plan … are done" after a
 * run_plan that threw). A failed call's result is what the engine sends the model for it
 * (server/engine/tool-task.ts, recordResult): a JSON object whose `error` is the message, with
 * `approval: "denied"` when the person said no. Tried before every other follow-up, the feature
 * demos' included, since none of those answers is true of a call that failed.
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
    const result = parseObject(call.result);
    return typeof result.error === "string" ? [{ name: call.name, error: result.error, denied: result.approval === "denied" }] : [];
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
