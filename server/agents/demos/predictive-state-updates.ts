/**
 * Dojo feature "predictive state updates": a document (state.document) written by a tool whose
 * argument IS the new document. write_document stores it in the shared state when it runs.
 *
 * The prediction: `predictState` makes state.document follow the tool's `document` argument
 * while the model streams it, before the tool runs, so the page shows the document being written
 * (it draws state.document either way; the tool's own write comes last and wins).
 */
import { z } from "zod";
import { defineAgent, defineTool, type AgentDefinition } from "../define.ts";

export const PREDICTIVE_STATE_UPDATES_ID = "predictive_state_updates";

export const WriteDocumentArgsSchema = z.object({
  document: z.string().describe("The complete new text of the document (Markdown)"),
});

export function predictiveStateUpdatesAgent(): AgentDefinition {
  const writeDocument = defineTool({
    name: "write_document",
    description: "Write the shared document (state.document): always give the whole new text, not a change.",
    inputSchema: WriteDocumentArgsSchema,
    async execute({ document }, ctx) {
      // `add` also replaces: the first document creates the member, later ones overwrite it.
      await ctx.state.patch([{ op: "add", path: "/document", value: document }]);
      return { words: document.split(/\s+/).filter(Boolean).length };
    },
  });
  return defineAgent({
    id: PREDICTIVE_STATE_UPDATES_ID,
    description: "Predictive state updates: the agent writes a document with write_document; the page shows state.document.",
    instructions:
      "You write and revise a document with the user. The current document is given in the application " +
      "context. To change it, call write_document with the complete new text, then say in one sentence what you changed.",
    tools: [writeDocument],
    predictState: [{ tool: "write_document", argument: "document", stateKey: "document" }],
    maxTurns: 4,
  });
}
