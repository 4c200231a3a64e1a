/**
 * agentCapabilities is derived from the definition, so each flag is checked against the part of
 * the definition the engine acts on: approvals and approveWithEdits from needsApproval (every
 * approval takes editedArgs: interrupt-forms.test.ts runs the edits through both clients),
 * interrupts from having a backend tool (ctx.interrupt), STATE_DELTA from a tool or predictState.
 * Served at GET /api/agents/:id and CopilotKit's /info: protocol-versions.test.ts.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { agentCapabilities } from "../../server/agents/capabilities.ts";
import { defineAgent, defineTool, type NeedsApproval } from "../../server/agents/define.ts";

const toolWith = (needsApproval?: NeedsApproval<{ to: string }>) =>
  defineTool({
    name: "send_email",
    description: "Sends an email.",
    inputSchema: z.object({ to: z.string() }),
    ...(needsApproval !== undefined && { needsApproval }),
    execute: () => "sent",
  });
const hitl = (tools: ReturnType<typeof toolWith>[]) => agentCapabilities(defineAgent({ id: "a", instructions: "x", tools }), null).humanInTheLoop;

describe("agentCapabilities", () => {
  it.each([
    ["true", true, true],
    ["a function of the arguments", (a: { to: string }) => a.to.endsWith("@external.com"), true],
    ["{ expiresInMs } (when defaults to always)", { expiresInMs: 60_000 }, true],
    ["{ when: a function }", { when: () => false }, true],
    ["false", false, false],
    ["{ when: false }", { when: false }, false],
    ["absent", undefined, false],
  ] as const)("needsApproval %s: approvals and approveWithEdits %s", (_label, rule, asks) => {
    expect(hitl([toolWith(rule as NeedsApproval<{ to: string }> | undefined)])).toEqual({
      supported: true,
      approvals: asks,
      interrupts: true,
      approveWithEdits: asks,
    });
  });

  it("approvals when any one tool asks, among tools that do not", () => {
    expect(hitl([toolWith(false), { ...toolWith(true), name: "send_fax" }])).toMatchObject({ approvals: true, approveWithEdits: true });
  });

  it("an agent without backend tools: no interrupts, no approvals, no STATE_DELTA; predictState alone sends deltas", () => {
    const bare = agentCapabilities(defineAgent({ id: "bare", instructions: "x" }), null);
    expect(bare.humanInTheLoop).toEqual({ supported: true, approvals: false, interrupts: false, approveWithEdits: false });
    expect(bare.state).toEqual({ snapshots: true, deltas: false, memory: false, persistentState: true });
    expect(bare.multimodal).toBeUndefined(); // no model: input types undeclared, not refused
    const predicting = agentCapabilities(
      defineAgent({ id: "p", instructions: "x", predictState: [{ tool: "write_document", argument: "document", stateKey: "document" }] }),
      null,
    );
    expect(predicting.state).toMatchObject({ deltas: true });
    expect(agentCapabilities(defineAgent({ id: "t", instructions: "x", tools: [toolWith()] }), null).state).toMatchObject({ deltas: true });
  });
});
