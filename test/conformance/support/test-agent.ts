/**
 * The kit's own agent, built with the public defineAgent/defineTool API: one backend tool that
 * returns a result (lookup_order) and one that edits the shared state with an RFC 6902 patch
 * (add_note). The aimock fixtures of each suite decide when the "LLM" calls them.
 */
import type { Operation } from "fast-json-patch";
import { z } from "zod";
import { defineAgent, defineTool, type AgentDefinition } from "../../../server/agents/define.ts";

export const TEST_AGENT_ID = "conformance";

export const ORDERS: Record<string, { status: string; eta: string }> = {
  "A-1": { status: "shipped", eta: "tomorrow" },
  "A-2": { status: "packing", eta: "friday" },
};

export function lookupOrderResult(orderId: string): string {
  return JSON.stringify({ orderId, ...(ORDERS[orderId] ?? { status: "unknown", eta: "never" }) });
}

function asRecord(v: unknown): Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

export function conformanceAgent(): AgentDefinition {
  const lookupOrder = defineTool({
    name: "lookup_order",
    description: "The status of an order.",
    inputSchema: z.object({ orderId: z.string() }),
    execute: ({ orderId }) => lookupOrderResult(orderId),
  });
  const addNote = defineTool({
    name: "add_note",
    description: "Appends a note to state.notes.",
    inputSchema: z.object({ text: z.string() }),
    async execute({ text }, ctx) {
      const notes = asRecord(ctx.state.get()).notes;
      const ops: Operation[] = Array.isArray(notes)
        ? [{ op: "add", path: "/notes/-", value: text }]
        : [{ op: "add", path: "/notes", value: [text] }];
      await ctx.state.patch(ops);
      return { notes: Array.isArray(notes) ? notes.length + 1 : 1 };
    },
  });
  return defineAgent({
    id: TEST_AGENT_ID,
    description: "The AG-UI conformance kit's agent.",
    instructions: "You are the conformance kit's agent.",
    tools: [lookupOrder, addNote],
    maxTurns: 4,
  });
}
