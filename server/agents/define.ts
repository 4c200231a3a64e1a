/**
 * The agent definition API for users who bring their own agent:
 *
 *   const weather = defineTool({ name, description, parameters: z.object(...), execute })
 *   const agent = defineAgent({ id, description, instructions, tools: [weather] })
 *
 * Parameters are zod schemas: the JSON Schema the LLM sees is generated from them, and the
 * arguments the LLM sends are validated with them before `execute` runs. Arguments that fail
 * validation go back to the LLM as an error result, so it can correct itself.
 */
import type { Operation } from "fast-json-patch";
import { z } from "zod";

/** What a running tool may do besides returning its result. */
export interface ToolContext {
  threadId: string;
  runId: string;
  toolCallId: string;
  /** Aborted when the run is cancelled, interrupted, or its instance loses the lease. */
  signal: AbortSignal;
  state: {
    /** The thread's shared state as it is now (a copy: change it through patch or set). */
    get(): unknown;
    /** RFC 6902 patch; clients receive it as STATE_DELTA. */
    patch(ops: Operation[]): Promise<void>;
    /** Replaces the state; clients receive a STATE_SNAPSHOT. */
    set(state: unknown): Promise<void>;
  };
  /** Shows the tool's progress as an AG-UI activity message (ACTIVITY_SNAPSHOT). */
  progress(content: Record<string, unknown>, activityType?: string): Promise<void>;
  /** Streams terminal output, for tools that run commands. */
  terminal(data: string, stream?: "stdout" | "stderr"): Promise<void>;
  /**
   * Ends the conversation once this tool returns: the run finishes and the thread becomes
   * COMPLETED (a later run reopens it). For agents whose work has a natural end.
   */
  complete(result?: unknown): void;
}

export interface ToolDefinition<P extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  parameters: P;
  execute(args: z.infer<P>, ctx: ToolContext): unknown | Promise<unknown>;
}

export type DoubleTextingPolicy = "reject" | "enqueue" | "interrupt";
export const DoubleTextingPolicySchema = z.enum(["reject", "enqueue", "interrupt"]);

export interface AgentDefinition {
  id: string;
  description: string;
  instructions: string;
  /** Overrides OPENAI_MODEL for this agent. */
  model?: string;
  tools: ToolDefinition[];
  /** LLM requests per run before the run fails with MAX_TURNS_EXCEEDED. */
  maxTurns: number;
  /** What a run on a busy thread does; a request may override it. */
  doubleTexting: DoubleTextingPolicy;
  /**
   * When the instance executing a run dies: "resume" it from its last durable step on another
   * instance (default), or "fail" it with RUN_ERROR code INSTANCE_LOST (for agents whose tools
   * must not be retried after an unknown outcome).
   */
  onRecovery: "resume" | "fail";
}

export interface AgentInput {
  id: string;
  description?: string;
  instructions: string;
  model?: string;
  tools?: ToolDefinition[];
  maxTurns?: number;
  doubleTexting?: DoubleTextingPolicy;
  onRecovery?: "resume" | "fail";
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export class AgentDefinitionError extends Error {
  override readonly name = "AgentDefinitionError";
}

export function defineTool<P extends z.ZodType>(def: ToolDefinition<P>): ToolDefinition<P> {
  if (!TOOL_NAME.test(def.name)) {
    throw new AgentDefinitionError(
      `Tool name "${def.name}" is not allowed: use 1-64 letters, digits, "_" or "-" (the LLM APIs' rule).`,
    );
  }
  return def;
}

export function defineAgent(input: AgentInput): AgentDefinition {
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(input.id)) {
    throw new AgentDefinitionError(`Agent id "${input.id}" is not allowed: use 1-64 letters, digits, "_" or "-".`);
  }
  const tools = input.tools ?? [];
  const seen = new Set<string>();
  for (const t of tools) {
    if (seen.has(t.name)) throw new AgentDefinitionError(`Agent "${input.id}" has two tools named "${t.name}".`);
    seen.add(t.name);
  }
  return {
    id: input.id,
    description: input.description ?? "",
    instructions: input.instructions,
    model: input.model,
    tools,
    maxTurns: input.maxTurns ?? 10,
    doubleTexting: input.doubleTexting ?? "reject",
    onRecovery: input.onRecovery ?? "resume",
  };
}

/** The JSON Schema of a tool's parameters, as the LLM's function-calling API wants it. */
export function toolJsonSchema(tool: ToolDefinition): Record<string, unknown> {
  const schema = z.toJSONSchema(tool.parameters, { target: "draft-7" }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

export class AgentRegistry {
  readonly #agents = new Map<string, AgentDefinition>();

  constructor(agents: AgentDefinition[]) {
    for (const a of agents) {
      if (this.#agents.has(a.id)) throw new AgentDefinitionError(`Two agents have the id "${a.id}".`);
      this.#agents.set(a.id, a);
    }
  }

  get(id: string): AgentDefinition | undefined {
    return this.#agents.get(id);
  }

  list(): AgentDefinition[] {
    return [...this.#agents.values()];
  }
}
