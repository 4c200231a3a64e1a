/**
 * Dojo feature "predictive state updates": a document (state.document) written by the dojo
 * reference agents' tool `write_document_local`, whose argument IS the new document.
 *
 * The prediction: `predictState` makes state.document follow the tool's `document` argument
 * while the model streams it, before the tool runs, so the page shows the document being written
 * (it draws state.document either way; the tool's own write comes last and wins).
 *
 * The confirmation, as in the dojo's reference agents: after the write succeeds, the agent itself
 * (the tool's `followUp`, not the model) calls the page's frontend tool `confirm_changes`
 * (arguments `{}`); the run ends with the proposal in state.document and the question open. The page answers `{accepted: true}` (the document stays) or `{accepted: false}`
 * after putting the previous document back into the state it sends with that answer, so the
 * thread's state is the user's choice. Rejected: the server reverting on its own, which would
 * need it to read the page's answer, a tool result of a tool it does not own, and guess what
 * "previous" means when the user also edited the document.
 */
import { z } from "zod";
import { defineAgent, defineTool, type AgentDefinition } from "../define.ts";

export const PREDICTIVE_STATE_UPDATES_ID = "predictive_state_updates";

/** The dojo reference agents' names: the backend tool, and the page's confirmation tool. */
export const WRITE_DOCUMENT_TOOL = "write_document_local";
export const CONFIRM_CHANGES_TOOL = "confirm_changes";

export const WriteDocumentArgsSchema = z.object({
  document: z.string().describe("The complete new text of the document (Markdown)"),
});

/** What the page answers to confirm_changes. */
export const ConfirmChangesAnswerSchema = z.object({ accepted: z.boolean() });

export function predictiveStateUpdatesAgent(): AgentDefinition {
  const writeDocument = defineTool({
    name: WRITE_DOCUMENT_TOOL,
    description:
      "Write the shared document (state.document) in Markdown: always give the whole new text, even to change a few " +
      "words, and keep edits minimal. Do not use italic or strike-through: the page uses them to mark changes.",
    inputSchema: WriteDocumentArgsSchema,
    followUp: { tool: CONFIRM_CHANGES_TOOL, arguments: {} },
    async execute({ document }, ctx) {
      // `add` also replaces: the first document creates the member, later ones overwrite it.
      await ctx.state.patch([{ op: "add", path: "/document", value: document }]);
      return "Document written.";
    },
  });
  return defineAgent({
    id: PREDICTIVE_STATE_UPDATES_ID,
    description: `Predictive state updates: the agent proposes a document with ${WRITE_DOCUMENT_TOOL}; you confirm or reject it (${CONFIRM_CHANGES_TOOL}).`,
    greeting: "I write documents as you watch; you confirm or reject the changes.",
    suggestions: ["Write a document about the sea", "Write a short piece about autumn"],
    instructions:
      "You write and revise a document with the user; the current document is state.document. To change it, call " +
      `${WRITE_DOCUMENT_TOOL} with the complete new text (keep stories short); the user is then asked to confirm or ` +
      `reject the change (${CONFIRM_CHANGES_TOOL}). Never repeat the document in the chat. When the answer is ` +
      "accepted: true, summarise the change in one or two sentences; when it is accepted: false, say the document " +
      "stays as it was.",
    tools: [writeDocument],
    predictState: [{ tool: WRITE_DOCUMENT_TOOL, argument: "document", stateKey: "document" }],
    maxTurns: 4,
  });
}
