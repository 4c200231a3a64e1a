/**
 * The demo model on the predictive state updates agent: any request is answered with
 * write_document and a whole short document, long enough that its arguments stream in many
 * chunks (what a prediction of state.document would follow).
 */
import type { Fixture } from "@copilotkit/aimock";
import { answeredCalls, captured, endsWithUser, lastResultIs, lastUserText, offers, toolCall } from "../request.ts";

const TOOL = "write_document";

function documentAbout(topic: string): string {
  const title = topic.charAt(0).toUpperCase() + topic.slice(1);
  return [
    `# ${title}`,
    "",
    `This is a short piece about ${topic}, written by Threadline's offline demo model.`,
    "It arrives through the write_document tool, whose single argument is the whole document.",
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

export function predictiveStateUpdatesFixtures(): Fixture[] {
  return [
    {
      match: { predicate: lastResultIs(TOOL) },
      response: (req) => {
        const document = String(answeredCalls(req).at(-1)?.args.document ?? "");
        const words = document.split(/\s+/).filter(Boolean).length;
        return { content: `The document is written: ${words} words. Ask me for any change.` };
      },
    },
    {
      match: { predicate: (req) => offers(req, TOOL) && endsWithUser(req) },
      response: (req) => {
        const topic = captured(lastUserText(req), /\babout\s+(.+?)[.!?]*$/i, "the sea");
        return { toolCalls: [toolCall(req, 0, TOOL, { document: documentAbout(topic) })] };
      },
    },
  ];
}
