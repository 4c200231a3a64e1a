/** The HTTP and SSE layer: what the clients need before any event is read. */
import { fail, pass } from "../types.ts";
import type { RuleSpec } from "./rule.ts";

export const sseResponse: RuleSpec = {
  name: "sse-response",
  title: "Each run is answered 2xx with Content-Type text/event-stream, and the response ends.",
  check(ctx) {
    for (const run of ctx.runs) {
      const x = run.exchange;
      const at = { scenario: run.scenario };
      if (x.ending === "network-error") return fail(`the request failed: ${x.error}`, at);
      if (x.status < 200 || x.status >= 300) return fail(`HTTP ${x.status}: ${x.text.slice(0, 300)}`, at);
      if (!/^text\/event-stream\s*(;|$)/i.test(x.contentType)) return fail(`Content-Type is "${x.contentType}", not text/event-stream`, at);
      if (x.ending === "timeout") return fail(`the response did not end within ${ctx.timeoutMs} ms`, { ...at, frame: x.blocks.at(-1)?.raw ?? "" });
      if (x.ending === "too-large") return fail(`the response grew past the kit's bound of ${ctx.maxResponseBytes} bytes without ending`, at);
    }
    const largest = Math.max(...ctx.runs.map((r) => r.exchange.body.byteLength));
    return pass(`${ctx.runs.length} runs, each 2xx text/event-stream, each ended; the largest ${largest} bytes`);
  },
};

export const sseFraming: RuleSpec = {
  name: "sse-framing",
  title: "Every SSE block is `data: <JSON object with a string type>` (comments, id:, event:, retry: allowed), LF line ends only.",
  check(ctx) {
    let frames = 0;
    for (const run of ctx.runs) {
      const at = { scenario: run.scenario };
      const cr = run.exchange.text.indexOf("\r");
      if (cr !== -1) {
        const block = run.exchange.blocks.find((b) => b.raw.includes("\r"));
        return fail("a CR in the stream: both clients split on LF LF and then fail to parse the JSON", { ...at, frame: block?.raw ?? "" });
      }
      for (const block of run.exchange.blocks) {
        if (block.stray.length > 0) return fail(`a line that is no SSE field: ${JSON.stringify(block.stray[0]!.slice(0, 80))}`, { ...at, frame: block.raw });
      }
      for (const f of run.exchange.frames) {
        frames++;
        if (f.error) return fail(f.error, { ...at, frame: f.block.raw });
      }
    }
    if (frames === 0) return fail("no data frames in any run");
    return pass(`${frames} data frames, each one JSON event`);
  },
};
