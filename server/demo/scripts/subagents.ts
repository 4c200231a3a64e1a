/**
 * The demo model on the subagents agent: the lead's turn calls both helpers at once with the
 * user's question; each child answers from its instructions (told apart by their first words);
 * the lead's follow-up sums both answers up. An offline model knows no facts: the children say
 * what they would look into, and that a real model would fill it in.
 */
import type { DemoFixture } from "../fixture.ts";
import { answeredCalls, endsWithUser, lastUserText, offers, text, toolCall } from "../request.ts";
import { FACT_CHECKER_INSTRUCTIONS, FACT_CHECKER_TOOL, RESEARCHER_INSTRUCTIONS, RESEARCHER_TOOL } from "../../agents/demos/subagents.ts";

type Request = Parameters<typeof endsWithUser>[0];

function systemStartsWith(req: Request, prefix: string): boolean {
  const system = req.messages.find((m) => m.role === "system");
  return system !== undefined && text(system.content).startsWith(prefix);
}

/** The question without a trailing question mark, for quoting inside a sentence. */
function topic(message: string): string {
  return message.trim().replace(/[?.!]+$/, "") || "your question";
}

export function subagentsFixtures(): DemoFixture[] {
  return [
    {
      match: { predicate: (req) => offers(req, RESEARCHER_TOOL) && answeredCalls(req).length >= 2 },
      response: (req) => {
        const answers = answeredCalls(req);
        const of = (name: string) => answers.find((a) => a.name === name)?.result.trim() ?? "(no answer)";
        return {
          content:
            `My two helpers worked on it at the same time.\n\n**Researcher**\n\n${of(RESEARCHER_TOOL)}\n\n**Fact checker**\n\n${of(FACT_CHECKER_TOOL)}\n\n` +
            "I am the built-in **demo model**, so these are placeholders; with a real model (set `MODEL` and its API key) each helper would answer for real.",
        };
      },
    },
    {
      match: { predicate: (req) => offers(req, RESEARCHER_TOOL) && endsWithUser(req) },
      response: (req) => {
        const question = lastUserText(req).trim() || "your question";
        return {
          toolCalls: [
            toolCall(req, 0, RESEARCHER_TOOL, { task: `Research this question and list what you find: ${question}` }),
            toolCall(req, 1, FACT_CHECKER_TOOL, { task: `Check this question for common mistakes: ${question}` }),
          ],
        };
      },
    },
    {
      match: { predicate: (req) => systemStartsWith(req, RESEARCHER_INSTRUCTIONS) && endsWithUser(req) },
      response: (req) => {
        const about = topic(lastUserText(req).replace(/^Research this question and list what you find:\s*/, ""));
        return {
          content: `- What the standard explanation of "${about}" says\n- The numbers or dates it rests on\n- Where the explanation is usually simplified`,
        };
      },
    },
    {
      match: { predicate: (req) => systemStartsWith(req, FACT_CHECKER_INSTRUCTIONS) && endsWithUser(req) },
      response: (req) => {
        const about = topic(lastUserText(req).replace(/^Check this question for common mistakes:\s*/, ""));
        return { content: `The core of "${about}" is well established. Watch for figures quoted without their source or date.` };
      },
    },
  ];
}
