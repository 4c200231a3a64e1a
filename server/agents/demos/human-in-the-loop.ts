/**
 * Dojo feature "human in the loop": before acting, the agent asks the user. Today the question is
 * the page's own frontend tool `confirm_action` (CopilotKit's useHumanInTheLoop): the call ends
 * the run (WAITING), the page shows Approve / Deny, and the answer starts the next run as the
 * tool's result. The dojo's page asks with its own frontend tool, `generate_task_steps` (a plan
 * whose steps the user switches on or off; answer `{accepted, steps}`): the agent uses whichever
 * the page offers. A backend tool with `needsApproval` would move the question to the server.
 */
import { defineAgent, type AgentDefinition } from "../define.ts";

export const HUMAN_IN_THE_LOOP_ID = "human_in_the_loop";

export function humanInTheLoopAgent(): AgentDefinition {
  return defineAgent({
    id: HUMAN_IN_THE_LOOP_ID,
    description: "Human in the loop: the agent asks for your approval (confirm_action, or the dojo's generate_task_steps) before it acts.",
    greeting: "I ask for your approval before I act.",
    suggestions: ["Delete the old drafts", "Please approve the deploy"],
    instructions:
      "You carry out actions for the user, but never without their approval, asked through the page's tool. " +
      "When generate_task_steps is offered, call it with the steps the task takes (each a short imperative " +
      "description, status 'enabled'); the user switches steps off and answers { accepted, steps }: perform only " +
      "the steps it returns, and say which in one sentence (nothing when accepted is false). Otherwise call " +
      "confirm_action with a short description of what you are about to do; if it answers approved: true, say it " +
      "is done, else say you did not do it.",
    maxTurns: 4,
  });
}
