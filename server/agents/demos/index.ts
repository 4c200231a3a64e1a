/**
 * The AG-UI dojo's features, one small agent each, registered by default next to `default`.
 * The web app has a page per feature (client/src/demos), and the offline demo model scripts each
 * one (server/demo/scripts), so all of them work without an API key.
 */
import type { AgentDefinition } from "../define.ts";
import { agenticChatAgent } from "./agentic-chat.ts";
import { agenticGenerativeUiAgent } from "./agentic-generative-ui.ts";
import { backendToolRenderingAgent } from "./backend-tool-rendering.ts";
import { humanInTheLoopAgent } from "./human-in-the-loop.ts";
import { predictiveStateUpdatesAgent } from "./predictive-state-updates.ts";
import { sharedStateAgent } from "./shared-state.ts";
import { subagentsAgent } from "./subagents.ts";
import { toolBasedGenerativeUiAgent } from "./tool-based-generative-ui.ts";

export interface DemoAgentOptions {
  /** Time each step of the agentic generative UI plan takes (tests make it short). */
  planStepDelayMs?: number;
}

export function demoAgents(opts: DemoAgentOptions = {}): AgentDefinition[] {
  return [
    agenticChatAgent(),
    backendToolRenderingAgent(),
    humanInTheLoopAgent(),
    agenticGenerativeUiAgent({ stepDelayMs: opts.planStepDelayMs }),
    toolBasedGenerativeUiAgent(),
    sharedStateAgent(),
    predictiveStateUpdatesAgent(),
    subagentsAgent(),
  ];
}
