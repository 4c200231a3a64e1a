/**
 * The demo model's scripts for the feature demo agents (server/agents/demos). Each script keys on
 * a tool only its agent is offered, its follow-up (the request ends with that tool's result)
 * before its trigger. The agents that need no script of their own use the default agent's:
 * agentic chat (change_background), backend tool rendering (get_weather), human in the loop
 * (confirm_action on "delete" / "approve"; the dojo's generate_task_steps has its own script). The
 * coding agent is keyed on write + bash + edit; an agent with memory on the recall tool; the
 * subagents agent on its researcher tool, and its children on the first words of their instructions.
 */
import type { DemoFixture } from "../fixture.ts";
import { agenticGenerativeUiFixtures } from "./agentic-generative-ui.ts";
import { codingFixtures } from "./coding.ts";
import { humanInTheLoopFixtures } from "./human-in-the-loop.ts";
import { memoryFixtures } from "./memory.ts";
import { predictiveStateUpdatesFixtures } from "./predictive-state-updates.ts";
import { sharedStateFixtures } from "./shared-state.ts";
import { subagentsFixtures } from "./subagents.ts";
import { toolBasedGenerativeUiFixtures } from "./tool-based-generative-ui.ts";

export function demoAgentFixtures(): DemoFixture[] {
  return [
    ...agenticGenerativeUiFixtures(),
    ...toolBasedGenerativeUiFixtures(),
    ...humanInTheLoopFixtures(),
    ...sharedStateFixtures(),
    ...predictiveStateUpdatesFixtures(),
    ...codingFixtures(),
    ...memoryFixtures(),
    ...subagentsFixtures(),
  ];
}
