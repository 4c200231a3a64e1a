/**
 * Predictive state (AgentInput.predictState) through the real clients, 1.0.0 and 0.0.59: while
 * aimock streams a write_document call's arguments chunk by chunk, the document reaches the
 * client as STATE_DELTA frames before TOOL_CALL_END, fewer than the argument deltas, each a
 * valid patch the client applies; the tool's own write wins at the end, and the client's final
 * state is the server's. A run cancelled mid-call puts the key back as it was. A reload in the
 * middle of the call (GET /api/threads/:id, a connect without cursor applied by both clients)
 * shows the document as far as it has streamed.
 */
import { randomUUID } from "node:crypto";
import type { Fixture } from "@copilotkit/aimock";
import type { Message } from "@ag-ui/core";
import type fjp from "fast-json-patch";
import { z } from "zod";
import { expect, it } from "vitest";
import { defineAgent, defineTool } from "../../server/agents/define.ts";
import { PREDICT_STATE_INTERVAL_MS } from "../../server/engine/predicted-state.ts";
import { CLIENT_VERSIONS, cancelledEnd, checkWithBothClients, runClient } from "../support/agui-clients.ts";
import { postSse } from "../support/sse-client.ts";
import { toSse } from "../durability/support/live.ts";
import type { Frame } from "../durability/support/sse.ts";
import { untilEvent } from "../durability/support/threads.ts";
import { expectAccepted, expectBracketed, expectLifecyclesClosed, ofType, types, type Ev } from "./support/expect.ts";
import { conformanceSuite, local, newThreadId } from "./support/kit.ts";

const WRITER = "writer";
const DOCUMENT = Array.from({ length: 12 }, (_, i) => `Paragraph ${i + 1}: the durable log keeps every word.`).join(" "); // no escapes: a cut of its JSON is a cut of it
const SAVED = `${DOCUMENT}\n\n(saved)`;
/** Per chunk of 6 characters: some 100 argument chunks over about 1.5 s, many intervals long. */
const CHUNK_LATENCY_MS = 15;

const writeCall = { toolCalls: [{ name: "write_document", arguments: JSON.stringify({ document: DOCUMENT }) }] };
const fixtures: Fixture[] = [
  { match: { userMessage: "[predict", hasToolResult: true }, response: { content: "Saved." } },
  { match: { userMessage: "[predict-stream]" }, response: writeCall, latency: CHUNK_LATENCY_MS },
  { match: { userMessage: "[predict-hold]" }, response: writeCall },
];

function writerAgent() {
  const writeDocument = defineTool({
    name: "write_document",
    description: "Writes the document shown beside the chat (state.document).",
    inputSchema: z.object({ document: z.string() }),
    async execute({ document }, ctx) {
      // The tool has the last word: what it stores differs from the argument, so a test can tell.
      await ctx.state.patch([{ op: "add", path: "/document", value: `${document}\n\n(saved)` }]);
      return "saved";
    },
  });
  return defineAgent({
    id: WRITER,
    instructions: "You write documents.",
    tools: [writeDocument],
    predictState: [{ tool: "write_document", argument: "document", stateKey: "document" }],
  });
}

/** The /document values of the STATE_DELTA frames, with their positions. */
function documentDeltas(events: readonly Ev[]): { at: number; value: unknown }[] {
  return events.flatMap((e, at) =>
    e.type === "STATE_DELTA"
      ? (e.delta as fjp.Operation[]).filter((op) => op.path === "/document" && op.op === "add").map((op) => ({ at, value: (op as fjp.AddOperation<unknown>).value }))
      : [],
  );
}

function user(tag: string, threadId: string): Message {
  return { id: `u-${randomUUID()}`, role: "user", content: `${tag} [${threadId}] write the memo` };
}

conformanceSuite("predictive state", { fixtures, agents: () => [writerAgent()], holdUpstream: true }, (target) => {
  it.each(CLIENT_VERSIONS)("streams the document as STATE_DELTA before TOOL_CALL_END (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const threadId = newThreadId(`predict-${version}`);
    const out = await runClient(version, {
      url: t.runUrl(WRITER),
      input: { threadId, messages: [user("[predict-stream]", threadId)], state: { theme: "dark" } },
    });
    expectAccepted(out);
    expectBracketed(out.events, { threadId, terminal: "RUN_FINISHED" });
    expectLifecyclesClosed(out.events);
    expect(out.warnings.filter((w) => /patch/i.test(w))).toEqual([]); // every delta applied

    const start = out.events.findIndex((e) => e.type === "TOOL_CALL_START");
    const end = out.events.findIndex((e) => e.type === "TOOL_CALL_END");
    const deltas = documentDeltas(out.events);
    const predicted = deltas.filter((d) => d.at > start && d.at < end);
    // Several while the arguments still stream, each the start of the document, the last one all of it.
    const lastArgs = types(out.events).lastIndexOf("TOOL_CALL_ARGS");
    expect(predicted.filter((d) => d.at < lastArgs).length).toBeGreaterThanOrEqual(2);
    for (const d of predicted) expect(DOCUMENT.startsWith(d.value as string)).toBe(true);
    expect(predicted.at(-1)!.value).toBe(DOCUMENT);

    // The bound is in time, not in deltas (test/llm/predicted-state.test.ts drives it by the clock):
    // at most one write per interval of the call's streaming, plus the final one, plus one for
    // the lag between an event's emit and its commit time (`at`), which may shorten the span.
    expect(ofType(out.events, "TOOL_CALL_ARGS").length).toBeGreaterThan(50);
    const log = await kit.log(threadId);
    const opened = log.find((e) => e.type === "toolcall.started")!.at;
    const closed = log.find((e) => e.type === "toolcall.ended")!.at;
    expect(predicted.length).toBeLessThanOrEqual(Math.ceil((closed - opened) / PREDICT_STATE_INTERVAL_MS) + 3);

    // After the call the tool's own write wins, and the client ends where the server is.
    const after = deltas.filter((d) => d.at > end);
    expect(after.map((d) => d.value)).toEqual([SAVED]);
    const server = await kit.thread(threadId);
    expect(server.state).toEqual({ theme: "dark", document: SAVED });
    expect(out.state).toEqual(server.state);
  });

  it.each(CLIENT_VERSIONS)("puts the key back when the run is cancelled mid-call (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const held = kit.held!;
    const threadId = newThreadId(`predict-cancel-${version}`);
    held.holdAfter(42);
    const live = runClient(version, {
      url: t.runUrl(WRITER),
      input: { threadId, messages: [user("[predict-hold]", threadId)], state: { document: "the old draft" } },
    });
    await held.held();
    await untilEvent(kit.server.store, threadId, (e) => e.type === "state.patched" && JSON.stringify(e.data.patch).includes("Paragraph 1"));
    expect((await kit.thread(threadId)).state).not.toEqual({ document: "the old draft" });

    const res = await fetch(`${kit.server.url}/api/threads/${threadId}/cancel`, { method: "POST" });
    expect(res.status).toBe(200);
    const out = await live;
    held.release(); // aimock's side of the cut request may end now
    expectAccepted(out);
    expect(out.events.at(-1)).toMatchObject(cancelledEnd(version));
    // The call never happened, so neither did its document: the old draft is back, everywhere.
    const server = await kit.thread(threadId);
    expect(server.state).toEqual({ document: "the old draft" });
    expect(out.state).toEqual(server.state);
  });

  it.each(CLIENT_VERSIONS)("shows the partial document to a reload in the middle of the call (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const held = kit.held!;
    const threadId = newThreadId(`predict-reload-${version}`);
    // Role chunk, tool-call chunk, then 40 argument chunks of 6 characters: the call stops there.
    held.holdAfter(42);
    const live = runClient(version, { url: t.runUrl(WRITER), input: { threadId, messages: [user("[predict-hold]", threadId)] } });
    const forwarded = (await held.held()) as { choices: { delta: { tool_calls?: { function?: { arguments?: string } }[] } }[] }[];
    const argsSoFar = forwarded.map((c) => c.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? "").join("");
    const partial = argsSoFar.slice('{"document":"'.length);
    expect(partial.length).toBeGreaterThan(100);
    expect(DOCUMENT.startsWith(partial) && partial !== DOCUMENT).toBe(true);

    // The model is silent now: the value so far is written within the interval, not at the next delta.
    await untilEvent(kit.server.store, threadId, (e) => e.type === "state.patched" && JSON.stringify(e.data.patch).includes(JSON.stringify(partial)));
    const mid = await kit.thread(threadId);
    expect(mid.status).toBe("RUNNING");
    expect(mid.state).toEqual({ document: partial });

    // A reload: the connect's replay carries it, and both clients build that state from it.
    const reload = await postSse(`${kit.server.url}/api/agents/${WRITER}/connect`, { threadId });
    await reload.waitFor((f) => f.event.type === "STATE_DELTA" && JSON.stringify(f.event.delta).includes(JSON.stringify(partial)));
    const soFar = await checkWithBothClients(toSse(reload.frames as Frame[]), { threadId });
    for (const v of CLIENT_VERSIONS) {
      expect(soFar[v].failed, `@ag-ui/client ${v}: ${soFar[v].error?.message}`).toBe(false);
      expect(soFar[v].state, `reload by ${v}`).toEqual({ document: partial });
    }

    held.release();
    const out = await live;
    expectAccepted(out);
    const frames = (await reload.done) as Frame[];
    const server = await kit.thread(threadId);
    expect(server.state).toEqual({ document: SAVED });
    expect(out.state).toEqual(server.state);
    const replayed = await checkWithBothClients(toSse(frames), { threadId });
    for (const v of CLIENT_VERSIONS) {
      expect(replayed[v].failed, `@ag-ui/client ${v}: ${replayed[v].error?.message}`).toBe(false);
      expect(replayed[v].state, `reload by ${v}`).toEqual(server.state);
    }
  });
});
