/** Bad input is refused with a 4xx before any stream starts: never a 200 with an error inside. */
import { fail, pass } from "../types.ts";
import type { RuleSpec } from "./rule.ts";

/** What the kit sends, each wrong in its own way. */
export const BAD_INPUTS: Array<{ what: string; body: string }> = [
  { what: "a body that is not JSON", body: "{ this is not json" },
  { what: "a JSON body that is not a RunAgentInput (messages is a string)", body: JSON.stringify({ threadId: "t", runId: "r", messages: "hello" }) },
];

export const badInput: RuleSpec = {
  name: "bad-input",
  title: "A request that is not a RunAgentInput is answered 4xx, with no event stream.",
  check(ctx) {
    for (const { what, exchange: x } of ctx.badInput) {
      if (x.ending === "network-error") return fail(`${what}: the request failed: ${x.error}`);
      if (x.status < 400 || x.status >= 500) return fail(`${what}: HTTP ${x.status}, expected 4xx`, { frame: x.text.slice(0, 300) });
      if (/text\/event-stream/i.test(x.contentType) || x.frames.some((f) => f.event)) {
        return fail(`${what}: HTTP ${x.status} but an event stream came with it`, { frame: x.text.slice(0, 300) });
      }
    }
    return pass(ctx.badInput.map((b) => `${b.what}: ${b.exchange.status}`).join("; "));
  },
};
