/**
 * Dojo feature "human in the loop": before acting, the agent asks the user. Today the question is
 * the page's own frontend tool `confirm_action` (CopilotKit's useHumanInTheLoop): the call ends
 * the run (WAITING), the page shows Approve / Deny, and the answer starts the next run as the
 * tool's result. A backend tool with `needsApproval` would move the question to the server; the
 * page's approval card reads the same `{ approved }` answer either way.
 */
import { defineAgent, type AgentDefinition } from "../define.ts";

export const HUMAN_IN_THE_LOOP_ID = "human_in_the_loop";

export function humanInTheLoopAgent(): AgentDefinition {
  return defineAgent({
    id: HUMAN_IN_THE_LOOP_ID,
    description: "Human in the loop: the agent asks for your approval (confirm_action) before it acts.",
    instructions:
      "You carry out actions for the user, but never without their approval: first call the confirm_action " +
      "tool with a short description of what you are about to do. If it answers approved: true, say it is done; " +
      "otherwise say you did not do it.",
    maxTurns: 4,
  });
}
