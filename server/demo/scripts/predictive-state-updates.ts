/**
 * The demo model on the predictive state updates agent: any request is answered with
 * write_document_local and a whole short document, long enough that its arguments stream in
 * many chunks (what a prediction of state.document follows); then, when the page offers it,
 * confirm_changes asks the user; then one sentence on the answer.
 */
import type { DemoFixture } from "../fixture.ts";
import { CONFIRM_CHANGES_TOOL, WRITE_DOCUMENT_TOOL } from "../../agents/demos/predictive-state-updates.ts";
import { answeredCalls, captured, endsWithUser, lastResultIs, lastUserText, offers, parseObject, toolCall } from "../request.ts";

function documentAbout(topic: string): string {
  const title = topic.charAt(0).toUpperCase() + topic.slice(1);
  return [
    `# ${title}`,
    "",
    `This is a short piece about ${topic}, written by Threadline's offline demo model.`,
    `It arrives through the ${WRITE_DOCUMENT_TOOL} tool, whose single argument is the whole document.`,
    "",
    "## Why it matters",
    "",
    `Thinking about ${topic} for a moment is worthwhile: small things, looked at closely, tend to reveal more than expected.`,
    "",
    "## Next steps",
    "",
    "- Ask for a change (\"make it shorter\", \"add a conclusion\") and the document is rewritten whole.",
    "- Set OPENAI_API_KEY to have a real model write it.",
  ].join("\n");
}

function wordsOf(document: string): number {
  return document.split(/\s+/).filter(Boolean).length;
}

export function predictiveStateUpdatesFixtures(): DemoFixture[] {
  return [
    {
      match: { predicate: lastResultIs(CONFIRM_CHANGES_TOOL) },
      response: (req) => {
        const accepted = parseObject(answeredCalls(req).at(-1)!.result).accepted === true;
        return { content: accepted ? "Confirmed: the document keeps the change." : "Rejected: the document stays as it was." };
      },
    },
    {
      match: { predicate: lastResultIs(WRITE_DOCUMENT_TOOL) },
      response: (req) => {
        if (offers(req, CONFIRM_CHANGES_TOOL)) return { toolCalls: [toolCall(req, 0, CONFIRM_CHANGES_TOOL, {})] };
        const document = String(answeredCalls(req).at(-1)?.args.document ?? "");
        return { content: `The document is written: ${wordsOf(document)} words. Ask me for any change.` };
      },
    },
    {
      match: { predicate: (req) => offers(req, WRITE_DOCUMENT_TOOL) && endsWithUser(req) },
      response: (req) => {
        const topic = captured(lastUserText(req), /\babout\s+(.+?)[.!?]*$/i, "the sea");
        return { toolCalls: [toolCall(req, 0, WRITE_DOCUMENT_TOOL, { document: documentAbout(topic) })] };
      },
    },
  ];
}
