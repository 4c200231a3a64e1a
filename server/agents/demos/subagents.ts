/**
 * Subagents (AG-UI 1.0's SUBAGENT_* events; LangGraph's subgraphs, Mastra's agent networks): the
 * lead hands one question to two agents at once, a researcher and a fact checker, and answers
 * from what both return. Each child is a durable subagent run of the lead's run
 * (server/agents/subagent.ts); the page shows each child's work nested under its call.
 */
import { defineAgent, type AgentDefinition } from "../define.ts";
import { subagent } from "../subagent.ts";

export const SUBAGENTS_ID = "subagents";
export const RESEARCHER_TOOL = "researcher";
export const FACT_CHECKER_TOOL = "fact_checker";

/** The children's instructions open with these: the demo model tells the children apart by them. */
export const RESEARCHER_INSTRUCTIONS = "You are the research subagent.";
export const FACT_CHECKER_INSTRUCTIONS = "You are the fact-checking subagent.";

export function subagentsAgent(): AgentDefinition {
  const researcher = defineAgent({
    id: "researcher",
    description: "Finds the facts a question needs and lists them briefly.",
    instructions: `${RESEARCHER_INSTRUCTIONS} Answer the task with three short findings, one per line.`,
    maxTurns: 2,
  });
  const factChecker = defineAgent({
    id: "fact_checker",
    description: "Checks a claim or a question for what is commonly gotten wrong.",
    instructions: `${FACT_CHECKER_INSTRUCTIONS} Say what is solid and what needs care, in two sentences.`,
    maxTurns: 2,
  });
  return defineAgent({
    id: SUBAGENTS_ID,
    description: "Subagents: the lead hands your question to a researcher and a fact checker at once, then answers from both.",
    greeting: "Ask me anything: a researcher and a fact checker work on it at the same time, and I answer from both.",
    suggestions: ["Why is the sky blue?", "How tall is Mount Everest?"],
    instructions:
      "You lead two helpers. For every question, call researcher and fact_checker together, each with the full task " +
      "(they see nothing else of the conversation), then answer from what both returned.",
    tools: [subagent(researcher, { name: RESEARCHER_TOOL }), subagent(factChecker, { name: FACT_CHECKER_TOOL })],
    maxTurns: 4,
  });
}
