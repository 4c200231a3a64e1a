/**
 * The agent definition API for users who bring their own agent:
 *
 *   const weather = defineTool({ name, description, inputSchema: z.object(...), execute })
 *   const agent = defineAgent({ id, description, instructions, tools: [weather] })
 *
 * A tool's `inputSchema` is a zod schema or a plain JSON Schema object, as in the AI SDK and
 * MCP. The LLM sees its JSON Schema (generated from zod, or the one given), and the arguments
 * the LLM sends are validated before `execute` runs. Arguments that fail validation go back to
 * the LLM as an error result, so it can correct itself.
 */
import type { Operation } from "fast-json-patch";
import { z } from "zod";
import type { EventOf } from "../../protocol/events.ts";
import { jsonSchemaValidator } from "../../protocol/json-schema.ts";
import type { Model } from "../models/model.ts";
import {
  PredictStateSchema,
  renderStateAsJson,
  STATE_CONTEXT_MAX_BYTES,
  StateRenderingSchema,
  type PredictStateRule,
  type StateInContext,
  type StateInContextOption,
} from "./state-options.ts";
import type { ForeignSource } from "../engine/foreign/source.ts";
import type { RemoteEndpoint } from "./remote-endpoint.ts";
import type { SubagentSpec } from "./subagent.ts";
import { type Welcome, WelcomeSchema } from "./welcome.ts";
import type { TenantMemory } from "../memory/memory.ts";
import { memoryTools } from "../memory/tools.ts";

export type { PredictStateRule, StateInContext, StateInContextOption } from "./state-options.ts";

/** What a running tool may do besides returning its result. */
export interface ToolContext {
  threadId: string;
  /** The tenant that owns the thread (API_KEYS): whose part of the workspace root the run uses. */
  tenantId: string;
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
  /** RunAgentInput.forwardedProps of the run (what CopilotKit's `properties` become); read-only. */
  forwardedProps: unknown;
  /** Headers for an HTTP request the tool makes, so its server joins the call's trace (W3C traceparent); {} untraced. */
  traceHeaders(): Record<string, string>;
  /** Streams terminal output, for tools that run commands. */
  terminal(data: string, stream?: "stdout" | "stderr"): Promise<void>;
  /** Records a file the tool wrote (durable `artifact.written`, CUSTOM "artifact" for clients). */
  artifact(artifact: ArtifactWrite): Promise<void>;
  /**
   * Ends the conversation once this tool returns: the run finishes and the thread becomes
   * COMPLETED (a later run reopens it). For agents whose work has a natural end.
   */
  complete(result?: unknown): void;
  /**
   * Asks the user and waits for the answer, durably: the run ends with the thread WAITING and an
   * interrupt clients render (README, "Interrupts"); the run that carries the answer executes
   * this tool again from the start, and this call then returns the answer's payload at once.
   * So the code before it must be safe to run twice (read, don't write). A cancelled interrupt
   * (or one superseded by a new message) throws InterruptCancelledError here; uncaught, the
   * model reads it as the tool's error. Rejected: keeping the tool's promise pending across the
   * wait, which no restart or other instance could resume.
   */
  interrupt(request: InterruptAsk): Promise<unknown>;
  /**
   * The memory of the thread's tenant, shared by all its threads (docs/memory.md): what the
   * built-in remember/recall/forget tools use, and any tool may.
   */
  memory: TenantMemory;
}

/** What `ctx.artifact()` records: protocol/events.ts ArtifactWrittenSchema without the ids. */
export type ArtifactWrite = Omit<EventOf<"artifact.written">["data"], "runId" | "toolCallId">;

/** What `instructionsFor` is told about the run whose system prompt it writes. */
export interface RunInfo {
  threadId: string;
  forwardedProps: unknown;
}

/**
 * What `ctx.interrupt()` asks; `reason` is machine-readable: one of AG-UI 1.0's core reasons
 * ("tool_call", "confirmation", "input_required") or namespaced ("myapp:choose_slot"); any other
 * fails the tool with an error saying so (protocol/interrupts.ts isConformingReason).
 */
export interface InterruptAsk {
  reason: string;
  message?: string;
  /** What the client needs to render the question (options, defaults...); JSON. */
  payload?: unknown;
  /** JSON Schema of the expected answer, passed to the client as is. */
  responseSchema?: Record<string, unknown>;
  /** The question can be answered for this long (1 ms to MAX_INTERRUPT_EXPIRY_MS); after it, only cancelled. */
  expiresInMs?: number;
}

/**
 * needsApproval with options: `when` decides from the validated arguments as the function form
 * does (default: always); `expiresInMs` bounds how long the approval can be given.
 */
export interface ApprovalRule<A> {
  when?: boolean | ((args: A) => boolean | Promise<boolean>);
  expiresInMs?: number;
}

export type NeedsApproval<A> = boolean | ((args: A) => boolean | Promise<boolean>) | ApprovalRule<A>;

/**
 * The longest an interrupt may stay answerable: 30 days. An expiry is a promise to the user
 * that a stale question cannot be answered; a longer one is indistinguishable from none, which
 * is what leaving expiresInMs out says.
 */
export const MAX_INTERRUPT_EXPIRY_MS = 30 * 24 * 60 * 60 * 1000;

/** Thrown by ctx.interrupt() when the user cancelled the question or answered with a new message. */
export class InterruptCancelledError extends Error {
  override readonly name = "InterruptCancelledError";
  readonly code = "INTERRUPT_CANCELLED";
  constructor(
    readonly interruptId: string,
    readonly reason: string,
  ) {
    super(`The user did not answer (${reason}).`);
  }
}

/** A JSON Schema object, as the LLM APIs and MCP take a tool's input schema. */
export type JsonSchemaObject = Record<string, unknown>;

/** A tool as the engine uses it: its input schema always as zod, whatever it was given as. */
export interface ToolDefinition<P extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  /** Validates the arguments the LLM sends (built from `jsonSchema` when that was given). */
  inputSchema: P;
  /** The JSON Schema the tool was defined with, sent to the LLM as is; absent for zod tools. */
  jsonSchema?: JsonSchemaObject;
  /**
   * The call waits for the user's approval before it executes (true, or decided from the
   * validated arguments). Approved: it runs once; denied: it does not run and the model gets a
   * result saying so, with the user's reason. The user may approve with edited arguments
   * (validated against `inputSchema`): the tool runs with those.
   */
  needsApproval?: NeedsApproval<z.infer<P>>;
  /**
   * What the saved state should say of this call when its run is cancelled while it executes:
   * given the state at that moment, the JSON Patch ops to write before the run's end (a plan's
   * running and pending steps marked "cancelled"). Without it the state stays as the tool left it,
   * a step "running" for good. Rejected: the tool catching the abort itself, which cannot write
   * (the run refuses a cancelled tool's writes) and would run again on every abort reason.
   */
  onCancelState?: (state: unknown) => Operation[];
  /** A call of the client's tool the agent makes itself after this one succeeds (engine/follow-up-calls.ts). */
  followUp?: FollowUpCall;
  /** Set by subagent(): the call runs this agent as a subagent run (engine/subagent-task.ts). */
  subagent?: SubagentSpec;
  execute(args: z.infer<P>, ctx: ToolContext): unknown | Promise<unknown>;
}

/** `followUp`: the frontend tool to call, with these arguments (default `{}`). */
export interface FollowUpCall {
  tool: string;
  arguments?: Record<string, unknown>;
}

interface ToolInputBase<A> {
  name: string;
  description: string;
  needsApproval?: NeedsApproval<A>;
  onCancelState?: (state: unknown) => Operation[];
  followUp?: FollowUpCall;
  execute(args: A, ctx: ToolContext): unknown | Promise<unknown>;
}

/** defineTool with a zod schema; `parameters` is the older spelling of `inputSchema`. */
export type ZodToolInput<P extends z.ZodType> = ToolInputBase<z.infer<P>> &
  ({ inputSchema: P; parameters?: never } | { parameters: P; inputSchema?: never });

/** defineTool with a plain JSON Schema: the arguments are typed loosely, and validated at run time. */
export type JsonSchemaToolInput = ToolInputBase<Record<string, unknown>> & { inputSchema: JsonSchemaObject; parameters?: never };

export type DoubleTextingPolicy = "reject" | "enqueue" | "interrupt";
export const DoubleTextingPolicySchema = z.enum(["reject", "enqueue", "interrupt"]);

export interface AgentDefinition {
  id: string;
  description: string;
  instructions: string;
  /** The run's instructions when it should not be `instructions` (undefined: `instructions`). */
  instructionsFor?: (run: RunInfo) => string | undefined;
  /** The agent has the built-in memory tools (AgentInput.memory): capabilities say memory is on. */
  memory?: boolean;
  /** This agent's model: a "provider:name" spec (server/models/spec.ts) or a Model; the server's default when absent. */
  model?: string | Model;
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
  /** How the shared state reaches the model (AgentInput.stateInContext, defaults filled in); false: it does not. */
  stateInContext: StateInContext | false;
  /** Tool arguments written to state keys while they stream (AgentInput.predictState). */
  predictState: PredictStateRule[];
  /** What an empty chat shows (AgentInput.greeting and suggestions). */
  welcome: Welcome;
  /**
   * Set by remoteAgent(): the run is a POST to this AG-UI endpoint, whose events the engine
   * ingests (engine/foreign/), instead of the engine's own loop of model requests and tools.
   */
  remote?: RemoteEndpoint;
  /**
   * Set for an agent that runs in this process and is not in the registry (agentRunner(): an
   * application's CopilotKit runtime hands over its own agent per run): the run is the source's
   * events, ingested as a remote's are; recovery fails it with `lost` (run.accepted keeps it).
   */
  foreign?: ForeignSource;
}

export interface AgentInput {
  id: string;
  description?: string;
  instructions: string;
  /**
   * Per-run instructions, e.g. from forwardedProps (the coding agent's `systemPrompt`); returning
   * undefined keeps `instructions`. Called for every LLM request of the run.
   */
  instructionsFor?: (run: RunInfo) => string | undefined;
  /**
   * A "provider:name" spec ("anthropic:claude-sonnet-4-5") or a Model; the server's default when
   * absent or undefined (so `model: process.env.MODEL` type-checks with exactOptionalPropertyTypes).
   */
  model?: string | Model | undefined;
  tools?: ToolDefinition[];
  maxTurns?: number;
  doubleTexting?: DoubleTextingPolicy;
  onRecovery?: "resume" | "fail";
  /**
   * How the thread's shared state reaches the model. Default: every LLM request carries the state
   * as it is then (so a tool's change is seen on the next request of the same run), as compact
   * JSON after the instructions, cut past STATE_CONTEXT_MAX_BYTES (8 KB) with a marker.
   * `{ render(state) { return text } }` renders it your way ("" leaves it out of that request);
   * `{ maxBytes }` moves the bound (UTF-8 bytes, at least STATE_CONTEXT_MIN_BYTES); `false`: the
   * model never sees the state.
   */
  stateInContext?: StateInContextOption;
  /**
   * Predictive state: while the model streams a call of `tool`, the value of its `argument` so far
   * is written to `stateKey` of the shared state (clients get STATE_DELTA before TOOL_CALL_END),
   * at most once per PREDICT_STATE_INTERVAL_MS per call. When the arguments are complete the key
   * holds the argument's final value; a tool that then writes the key wins. A call that fails,
   * is cancelled, or ends without the argument puts the key back as it was.
   *   predictState: [{ tool: "write_document", argument: "document", stateKey: "document" }]
   */
  predictState?: PredictStateRule[];
  /** Shown in an empty chat (GET /api/agents/:id `welcome.greeting`); up to 500 characters. */
  greeting?: string;
  /** Messages an empty chat offers to send with one tap; up to 6, each up to 200 characters. */
  suggestions?: string[];
  /**
   * Memory across threads (docs/memory.md): the built-in tools remember, recall and forget over
   * the tenant's memory, in the namespace "agent" (or the one given). Off by default.
   */
  memory?: boolean | { namespace: string };
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export class AgentDefinitionError extends Error {
  override readonly name = "AgentDefinitionError";
}

export function defineTool<P extends z.ZodType>(def: ZodToolInput<P>): ToolDefinition<P>;
export function defineTool(def: JsonSchemaToolInput): ToolDefinition;
export function defineTool(input: ZodToolInput<z.ZodType> | JsonSchemaToolInput): ToolDefinition {
  // Read loosely: JavaScript callers, and TypeScript ones that cast, can pass any shape.
  const def = input as ToolInputBase<unknown> & { inputSchema?: unknown; parameters?: unknown };
  if (!TOOL_NAME.test(def.name)) {
    throw new AgentDefinitionError(
      `Tool name "${def.name}" is not allowed: use 1-64 letters, digits, "_" or "-" (the LLM APIs' rule).`,
    );
  }
  const { inputSchema, parameters, ...rest } = def;
  if (inputSchema !== undefined && parameters !== undefined) {
    throw new AgentDefinitionError(`Tool "${def.name}" has both inputSchema and parameters: keep inputSchema (parameters is its older name).`);
  }
  const given = inputSchema ?? parameters;
  if (given === undefined) {
    throw new AgentDefinitionError(`Tool "${def.name}" has no inputSchema: give a zod schema or a JSON Schema object, e.g. z.object({}) for a tool without arguments.`);
  }
  if (isZodSchema(given)) return { ...rest, inputSchema: given } as ToolDefinition;
  if (typeof given !== "object" || given === null || Array.isArray(given)) {
    throw new AgentDefinitionError(`Tool "${def.name}": inputSchema must be a zod schema or a JSON Schema object, not ${Array.isArray(given) ? "an array" : typeof given}.`);
  }
  return { ...rest, inputSchema: zodFromJsonSchema(def.name, given as JsonSchemaObject), jsonSchema: given as JsonSchemaObject } as ToolDefinition;
}

/**
 * Zod 4 schemas carry `_zod`; checked by shape rather than `instanceof`, which fails for a
 * schema built with another copy of zod than this package's.
 */
function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === "object" && value !== null && "_zod" in value && typeof (value as { safeParse?: unknown }).safeParse === "function";
}

/**
 * The validator of a JSON Schema tool (protocol/json-schema.ts: zod's own conversion, so both
 * kinds of tool are checked by the same code). A schema zod cannot convert is refused here, at
 * definition time, rather than on the first call.
 */
function zodFromJsonSchema(name: string, schema: JsonSchemaObject): z.ZodType {
  try {
    return jsonSchemaValidator(schema);
  } catch (err) {
    throw new AgentDefinitionError(`Tool "${name}": its inputSchema is not a JSON Schema this server can validate with: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

export function defineAgent(input: AgentInput): AgentDefinition {
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(input.id)) {
    throw new AgentDefinitionError(`Agent id "${input.id}" is not allowed: use 1-64 letters, digits, "_" or "-".`);
  }
  const tools = [...(input.tools ?? []), ...(input.memory ? memoryTools(typeof input.memory === "object" ? input.memory.namespace : undefined) : [])];
  const seen = new Set<string>();
  for (const t of tools) {
    if (seen.has(t.name)) throw new AgentDefinitionError(`Agent "${input.id}" has two tools named "${t.name}".`);
    seen.add(t.name);
  }
  return {
    id: input.id,
    description: input.description ?? "",
    instructions: input.instructions,
    ...(input.instructionsFor && { instructionsFor: input.instructionsFor }),
    model: input.model,
    tools,
    ...(input.memory && { memory: true }),
    maxTurns: input.maxTurns ?? 10,
    doubleTexting: input.doubleTexting ?? "reject",
    onRecovery: input.onRecovery ?? "resume",
    stateInContext: stateInContextOf(input),
    predictState: predictStateOf(input),
    welcome: welcomeOf(input),
  };
}

function welcomeOf(input: AgentInput): Welcome {
  const parsed = WelcomeSchema.safeParse({ greeting: input.greeting, suggestions: input.suggestions });
  if (!parsed.success) throw new AgentDefinitionError(`Agent "${input.id}": ${parsed.error.issues.map((i) => `${i.path.map(String).join(".")}: ${i.message}`).join("; ")}.`);
  return parsed.data;
}

function describeOption(option: string, issues: z.core.$ZodIssue[]): string {
  return issues.map((i) => `${[option, ...i.path.map(String)].join(".")}: ${i.message}`).join("; ");
}

function stateInContextOf(input: AgentInput): StateInContext | false {
  if (input.stateInContext === false) return false;
  const parsed = StateRenderingSchema.safeParse(input.stateInContext ?? {});
  if (!parsed.success) throw new AgentDefinitionError(`Agent "${input.id}": ${describeOption("stateInContext", parsed.error.issues)}.`);
  return { render: parsed.data.render ?? renderStateAsJson, maxBytes: parsed.data.maxBytes ?? STATE_CONTEXT_MAX_BYTES };
}

function predictStateOf(input: AgentInput): PredictStateRule[] {
  const parsed = PredictStateSchema.safeParse(input.predictState ?? []);
  if (!parsed.success) throw new AgentDefinitionError(`Agent "${input.id}": ${describeOption("predictState", parsed.error.issues)}.`);
  const writers = new Map<string, string>();
  for (const [i, rule] of parsed.data.entries()) {
    if (!TOOL_NAME.test(rule.tool)) {
      throw new AgentDefinitionError(
        `Agent "${input.id}": predictState.${i}.tool "${rule.tool}" can never be called: tool names are 1-64 letters, digits, "_" or "-".`,
      );
    }
    // Two arguments of one call racing for one key would leave it to whichever streamed last.
    const key = JSON.stringify([rule.tool, rule.stateKey]);
    const other = writers.get(key);
    if (other !== undefined) {
      throw new AgentDefinitionError(
        `Agent "${input.id}": predictState writes state key "${rule.stateKey}" from both "${other}" and "${[rule.argument].flat().join(".")}" of tool "${rule.tool}"; keep one.`,
      );
    }
    writers.set(key, [rule.argument].flat().join("."));
  }
  return parsed.data;
}

export { AgentRegistry } from "./registry.ts";
