/**
 * The shared state in the model's context (AgentInput.stateInContext), read off the requests the
 * upstream (aimock) recorded: the state a client sent in RunAgentInput.state is in the system
 * message of the run's first LLM request; after a tool patched it, the next request of the same
 * run carries the patched state; an agent's own render replaces the JSON; an agent that opts out
 * sends its instructions alone.
 */
import { randomUUID } from "node:crypto";
import type { ChatCompletionRequest, Fixture } from "@copilotkit/aimock";
import type { Message } from "@ag-ui/core";
import { expect, it } from "vitest";
import { defineAgent } from "../../server/agents/define.ts";
import { CLIENT_VERSIONS, runClient } from "../support/agui-clients.ts";
import { expectAccepted } from "./support/expect.ts";
import { conformanceSuite, local, newThreadId, TEST_AGENT_ID } from "./support/kit.ts";

const OPT_OUT = "state-opt-out";
const RENDERED = "state-rendered";
const OPT_OUT_INSTRUCTIONS = "You never see the state.";

const fixtures: Fixture[] = [
  { match: { userMessage: "[ctx-note]", hasToolResult: true }, response: { content: "Noted." } },
  {
    match: { userMessage: "[ctx-note]" },
    response: { toolCalls: [{ name: "add_note", arguments: JSON.stringify({ text: "buy milk" }) }] },
  },
  { match: { userMessage: "[ctx-chat]" }, response: { content: "Fine." } },
];

function agents() {
  return [
    defineAgent({ id: OPT_OUT, instructions: OPT_OUT_INSTRUCTIONS, stateInContext: false }),
    defineAgent({
      id: RENDERED,
      instructions: "You see the theme.",
      stateInContext: { render: (s) => `The page theme is ${String((s as { theme?: unknown }).theme)}.`, maxBytes: 512 },
    }),
  ];
}

function systemOf(req: ChatCompletionRequest): string {
  const first = req.messages[0];
  expect(first?.role).toBe("system");
  return typeof first?.content === "string" ? first.content : "";
}

conformanceSuite("state in the model's context", { fixtures, agents }, (target) => {
  it.each(CLIENT_VERSIONS)("sends the client's state, then the state a tool patched (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const threadId = newThreadId(`ctx-${version}`);
    const marker = `[${threadId}]`;
    const user: Message = { id: `u-${randomUUID()}`, role: "user", content: `[ctx-note] ${marker} remember milk` };
    const out = await runClient(version, {
      url: t.runUrl(TEST_AGENT_ID),
      input: { threadId, messages: [user], state: { theme: "dark" } },
    });
    expectAccepted(out);

    const [first, second, ...more] = kit.llmRequests(marker);
    expect(more).toEqual([]);
    // The first request: the state the client sent, before the tool ran.
    expect(systemOf(first!)).toContain('{"theme":"dark"}');
    expect(systemOf(first!)).not.toContain("notes");
    // The next request of the same run: the state as the tool left it.
    expect(systemOf(second!)).toContain('{"theme":"dark","notes":["buy milk"]}');
    expect((await kit.thread(threadId)).state).toEqual({ theme: "dark", notes: ["buy milk"] });
  });

  it.each(CLIENT_VERSIONS)("uses an agent's own render, and sends no state for an agent that opts out (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    for (const agentId of [RENDERED, OPT_OUT]) {
      const threadId = newThreadId(`${agentId}-${version}`);
      const marker = `[${threadId}]`;
      const user: Message = { id: `u-${randomUUID()}`, role: "user", content: `[ctx-chat] ${marker} hello` };
      const out = await runClient(version, {
        url: t.runUrl(agentId),
        input: { threadId, messages: [user], state: { theme: "dark", secret: "s3cr3t" } },
      });
      expectAccepted(out);
      const requests = kit.llmRequests(marker);
      expect(requests).toHaveLength(1);
      const system = systemOf(requests[0]!);
      expect(system).not.toContain("s3cr3t");
      expect(system).not.toContain("Shared state");
      if (agentId === RENDERED) expect(system).toBe("You see the theme.\n\nThe page theme is dark.");
      else expect(system).toBe(OPT_OUT_INSTRUCTIONS);
      expect(JSON.stringify(requests[0]!.messages)).not.toContain("s3cr3t");
    }
  });
});
