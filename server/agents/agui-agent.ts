/**
 * aguiAgent(): an AG-UI agent object that runs in this process (an @ag-ui/client AbstractAgent: a
 * Mastra, LangGraph or LlamaIndex adapter, an HttpAgent, an application's own), as an agent
 * definition, so it can be hosted or, above all, be a subagent:
 *
 *   const planner = aguiAgent({ id: "planner", agent: new MastraAgent({ agent: mastraPlanner }) })
 *   const lead = defineAgent({ id: "lead", instructions: "…", tools: [subagent(planner)] })
 *
 * Its events are ingested as a remote's are (engine/foreign/), from the agent's own observable
 * (copilotkit/agent-events.ts, the reader agentRunner() uses for an application runtime's agents).
 * Each run gets the agent's clone when it has one, so parallel runs never share its state. Like a
 * remote, it cannot be picked up midway by another instance: only this process holds the object,
 * so recovery ends its run with AGUI_AGENT_RUN_LOST (onRecovery "fail").
 */
import type { RunAgentInput } from "@ag-ui/core";
import { agentEvents, withTraceHeaders, type RunnableAgent } from "../copilotkit/agent-events.ts";
import type { ForeignCodes } from "../engine/foreign/ingest.ts";
import { defineAgent, type AgentDefinition } from "./define.ts";

export const AGUI_AGENT_CODES: ForeignCodes = {
  malformed: "AGENT_MALFORMED",
  disconnected: "AGENT_DISCONNECTED",
  failed: "AGENT_RUN_ERROR",
  tooLarge: "AGENT_OUTPUT_TOO_LARGE",
  name: "The agent",
};

export const AGUI_AGENT_RUN_LOST = {
  code: "AGENT_RUN_LOST",
  message: "The server running this agent stopped before its answer ended, and the agent cannot be picked up by another server midway. What it had finished is kept; send your message again.",
};

/** What aguiAgent() needs of the object: AbstractAgent's run and abortRun (and clone, if it has one). */
export interface AguiAgentObject {
  run(input: RunAgentInput): ReturnType<RunnableAgent["run"]>;
  abortRun(): void;
  clone?(): AguiAgentObject;
}

export interface AguiAgentInput {
  id: string;
  description?: string;
  agent: AguiAgentObject;
}

export function aguiAgent(input: AguiAgentInput): AgentDefinition {
  const base = defineAgent({ id: input.id, description: input.description ?? "", instructions: "", maxTurns: 1, onRecovery: "fail", stateInContext: false });
  return {
    ...base,
    foreign: {
      events: (run, signal, bounds, trace) => {
        const own = typeof input.agent.clone === "function" ? input.agent.clone() : input.agent;
        return agentEvents(withTraceHeaders(own, trace), run, signal, AGUI_AGENT_CODES, bounds);
      },
      codes: AGUI_AGENT_CODES,
      lost: AGUI_AGENT_RUN_LOST,
    },
  };
}
