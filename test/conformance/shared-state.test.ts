/**
 * 6. Shared state. Every run opens with a STATE_SNAPSHOT; a tool's RFC 6902 patch goes out as a
 * STATE_DELTA after it; the client's state ends equal to the server's (GET /api/threads/:id).
 * A run's input state is merged into the thread's: the client's top-level keys win, keys only the
 * thread has are kept.
 */
import { randomUUID } from "node:crypto";
import type { Fixture } from "@copilotkit/aimock";
import type { Message } from "@ag-ui/core";
import fjp from "fast-json-patch";
import { expect, it } from "vitest";
import { CLIENT_VERSIONS, runClient } from "../support/agui-clients.ts";
import { expectAccepted, expectBracketed, ofType, types } from "./support/expect.ts";
import { conformanceSuite, local, newThreadId, TEST_AGENT_ID } from "./support/kit.ts";

const fixtures: Fixture[] = [
  { match: { userMessage: "[state-note]", hasToolResult: true }, response: { content: "Noted." } },
  {
    match: { userMessage: "[state-note]" },
    response: { toolCalls: [{ name: "add_note", arguments: JSON.stringify({ text: "buy milk" }) }] },
  },
  { match: { userMessage: "[state-chat]" }, response: { content: "Your settings are noted." } },
];

conformanceSuite("shared state", { fixtures }, (target) => {
  it.each(CLIENT_VERSIONS)("snapshots, patches and merges state (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const url = t.runUrl(TEST_AGENT_ID);
    const threadId = newThreadId(`state-${version}`);
    const u1: Message = { id: `u1-${randomUUID()}`, role: "user", content: "[state-note] remember to buy milk" };

    // Run 1: the client's state seeds the (new) thread; the tool patches it.
    const run1 = await runClient(version, { url, input: { threadId, messages: [u1], state: { theme: "dark" } } });
    expectAccepted(run1);
    expectBracketed(run1.events, { threadId, terminal: "RUN_FINISHED" });
    const t1 = types(run1.events);
    expect(t1[1]).toBe("STATE_SNAPSHOT"); // right after RUN_STARTED: the base for every delta
    expect(ofType(run1.events, "STATE_SNAPSHOT")[0]!.snapshot).toEqual({ theme: "dark" });
    const deltas = ofType(run1.events, "STATE_DELTA");
    expect(deltas).toHaveLength(1);
    expect(t1.indexOf("STATE_DELTA")).toBeGreaterThan(t1.indexOf("STATE_SNAPSHOT"));
    const patch = deltas[0]!.delta as fjp.Operation[];
    expect(patch).toEqual([{ op: "add", path: "/notes", value: ["buy milk"] }]);
    expect(fjp.validate(patch, { theme: "dark" })).toBeUndefined(); // a valid RFC 6902 patch for the base
    expect(run1.warnings.filter((w) => /patch/i.test(w))).toEqual([]); // the client applied it

    const server1 = await kit.thread(threadId);
    expect(server1.state).toEqual({ theme: "dark", notes: ["buy milk"] });
    expect(run1.state).toEqual(server1.state);

    // Run 2 from a client that knows only some keys: they win, the thread's other keys stay.
    const u2: Message = { id: `u2-${randomUUID()}`, role: "user", content: "[state-chat] switch to light, in French" };
    const run2 = await runClient(version, {
      url,
      input: { threadId, messages: [...run1.messages, u2], state: { theme: "light", lang: "fr" } },
    });
    expectAccepted(run2);
    expectBracketed(run2.events, { threadId, terminal: "RUN_FINISHED" });
    const merged = { theme: "light", notes: ["buy milk"], lang: "fr" };
    expect(types(run2.events)[1]).toBe("STATE_SNAPSHOT");
    expect(ofType(run2.events, "STATE_SNAPSHOT")[0]!.snapshot).toEqual(merged);
    expect(ofType(run2.events, "STATE_DELTA")).toHaveLength(0);
    const server2 = await kit.thread(threadId);
    expect(server2.state).toEqual(merged);
    expect(run2.state).toEqual(server2.state);
  });
});
