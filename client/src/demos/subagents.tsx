/**
 * Subagents: the `subagents` agent's lead hands each question to two agents at once, a researcher
 * and a fact checker (server/agents/demos/subagents.ts), each a durable subagent run inside the
 * lead's. Each call is drawn as the child's card, with its task and its own streamed answer
 * nested inside (components/SubagentCard.tsx), from the first argument on; the panel lists the
 * runs and what became of them.
 */
import { useRenderTool } from "@copilotkit/react-core/v2";
import { z } from "zod";
import { SubagentCard } from "../components/SubagentCard.tsx";
import { toolLabel } from "../components/tool-labels.ts";
import { useThreadChrome } from "../chrome-context.ts";
import { cardStatus } from "../status.ts";
import { childRunIdOf, subagentStatus } from "../subagent-runs.ts";
import { useSubagents } from "../subagents.ts";
import { useThreadAgent } from "../thread-agent.ts";
import type { DemoFeature } from "./feature.ts";
import { toolCallsOf } from "./tool-calls.ts";

/** The lead's subagent tools (server/agents/demos/subagents.ts RESEARCHER_TOOL, FACT_CHECKER_TOOL). */
const TOOLS = ["researcher", "fact_checker"] as const;

const TaskArgs = z.object({ task: z.string() });

function useSubagentCard(name: string): void {
  useRenderTool({ name, parameters: TaskArgs, render: (p) => <SubagentCard name={p.name} toolCallId={p.toolCallId} status={p.status} args={p.parameters} /> }, []);
}

function Tools() {
  useSubagentCard(TOOLS[0]);
  useSubagentCard(TOOLS[1]);
  return null;
}

function Panel() {
  const agent = useThreadAgent();
  const subagents = useSubagents();
  const { detail, status } = useThreadChrome();
  const calls = TOOLS.flatMap((name) => toolCallsOf<{ task: string }>(agent.messages, name).map((c) => ({ ...c, name })));
  return (
    <section className="panel" data-testid="subagent-log">
      <h2>Subagent runs</h2>
      {calls.length === 0 && <p className="muted">No subagent has run yet.</p>}
      <ul className="plain">
        {calls.map((c) => {
          const run = subagents.run(childRunIdOf(c.id));
          const shown = subagentStatus(run, cardStatus(c.result === undefined ? "executing" : "complete", detail?.toolCalls[c.id], status));
          return (
            <li key={c.id} data-testid="subagent-log-item" data-status={shown}>
              <strong>{toolLabel(c.name)}</strong>: {shown}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

export const subagents: DemoFeature = {
  slug: "subagents",
  agentId: "subagents",
  title: "Subagents",
  summary:
    "The lead agent hands your question to two subagents at once, a researcher and a fact checker; each runs as its own durable run, drawn as a card with its task and its answer nested inside.",
  prompts: ["Why is the sky blue?", "How tall is Mount Everest?"],
  Tools,
  Panel,
};
