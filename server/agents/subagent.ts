/**
 * subagent(): another agent as a tool. The parent's model calls it with a task; the engine runs
 * the child as a durable subagent run inside the parent's (engine/subagent-task.ts): its events
 * are in the thread's log attributed to it, clients see AG-UI 1.0's SUBAGENT_* with the child's
 * work under its `subagentRunId`, and the child's final answer is the tool's result.
 *
 *   const researcher = defineAgent({ id: "researcher", instructions: "…" })
 *   const lead = defineAgent({ id: "lead", instructions: "…", tools: [subagent(researcher), subagent(remoteAgent({ id: "critic", url }))] })
 *
 * The child may be a local defineAgent, a remoteAgent, or an agent that itself has subagents.
 * Several subagent calls of one model turn run at once. The child sees only its task (and what
 * it does itself), never the parent's conversation: a model that hands work over must say in the
 * task what the child needs. Rejected: giving the child the parent's conversation, which sends a
 * long thread to every helper and lets a child answer the user's question instead of its task.
 */
import { z } from "zod";
import { defineTool, type AgentDefinition, type ToolDefinition } from "./define.ts";

/** The longest task a model may hand over (characters): a bound on what one call writes to the log. */
export const SUBAGENT_TASK_MAX_CHARS = 32_000;

export const SubagentArgsSchema = z.object({
  task: z
    .string()
    .min(1)
    .max(SUBAGENT_TASK_MAX_CHARS)
    .describe("The task, in full: the agent sees nothing else of this conversation."),
});
export type SubagentArgs = z.infer<typeof SubagentArgsSchema>;

export interface SubagentOptions {
  /** The tool's name, which clients show as the subagent's (SUBAGENT_STARTED.name); default the agent's id. */
  name?: string;
  /** What the parent's model reads to decide when to call it; default the agent's description. */
  description?: string;
}

/** What marks a tool as a subagent (the engine runs it, not `execute`). */
export interface SubagentSpec {
  agent: AgentDefinition;
}

export function subagent(agent: AgentDefinition, options: SubagentOptions = {}): ToolDefinition {
  const name = options.name ?? agent.id;
  const description = options.description ?? (agent.description || `Hands a task to the ${agent.id} agent and returns its answer.`);
  const tool = defineTool({
    name,
    description,
    inputSchema: SubagentArgsSchema,
    // Never called: the engine sees `subagent` and runs the child itself (subagent-task.ts).
    execute: () => {
      throw new Error(`${name} is a subagent: the engine runs it`);
    },
  });
  return { ...(tool as ToolDefinition), subagent: { agent } };
}

/** The agents an agent can hand work to, direct and nested (capabilities, admission). */
export function subagentsOf(agent: AgentDefinition): AgentDefinition[] {
  const seen = new Set<AgentDefinition>();
  const walk = (a: AgentDefinition): void => {
    for (const t of a.tools) {
      const child = t.subagent?.agent;
      if (child && !seen.has(child)) {
        seen.add(child);
        walk(child);
      }
    }
  };
  walk(agent);
  return [...seen];
}

/** A tool by name among the agent's and its subagents' (an approval a child asked names the child's tool). */
export function toolOf(agent: AgentDefinition, name: string): ToolDefinition | undefined {
  for (const a of [agent, ...subagentsOf(agent)]) {
    const tool = a.tools.find((t) => t.name === name);
    if (tool) return tool;
  }
  return undefined;
}
