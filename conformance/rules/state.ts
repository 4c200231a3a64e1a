/**
 * Shared state: each STATE_DELTA is an RFC 6902 patch that applies, validated, to the state the
 * client holds at that point: the last STATE_SNAPSHOT of the run, or the state the request sent
 * (what both clients start from). fast-json-patch is what both clients apply deltas with. A
 * failing patch is not fatal in the clients (they log it and keep the old state), which is
 * exactly why a user sees stale state and no error: it fails here.
 */
import jsonpatch from "fast-json-patch";
import { fail, pass, unsupported } from "../types.ts";
import { streamed, type RuleSpec } from "./rule.ts";

export const stateConsistency: RuleSpec = {
  name: "state",
  title: "STATE_DELTA patches apply (RFC 6902, validated) to the last STATE_SNAPSHOT or to the state the request sent.",
  check(ctx) {
    let snapshots = 0;
    let deltas = 0;
    for (const run of streamed(ctx)) {
      let state: unknown = structuredClone(run.input.state);
      for (const f of run.exchange.frames) {
        const e = f.event;
        if (e?.type === "STATE_SNAPSHOT") {
          snapshots++;
          state = structuredClone(e.snapshot);
        } else if (e?.type === "STATE_DELTA") {
          deltas++;
          try {
            state = jsonpatch.applyPatch(structuredClone(state), e.delta as jsonpatch.Operation[], true, false).newDocument;
          } catch (err) {
            return fail(`the delta does not apply to the state held at that point: ${(err as Error).message.split("\n")[0]}`, {
              scenario: run.scenario,
              frame: f.block.raw,
            });
          }
        }
      }
    }
    if (snapshots + deltas === 0) return unsupported("no run sent STATE_SNAPSHOT or STATE_DELTA");
    return pass(`${snapshots} snapshots, ${deltas} deltas, every delta applied`);
  },
};
