/**
 * What is open inside one AG-UI run while it is projected: text and reasoning messages, tool calls,
 * steps. The client verifiers (both versions) reject RUN_FINISHED while any of these is open, and
 * 1.0 rejects a continuation for anything that is not; this class is where the projection keeps
 * that bookkeeping so that `project.ts` can stay a plain mapping.
 */
import { EventType, type AGUIEvent, type TextMessageRole, type TokenUsage } from "@ag-ui/core";
import type { ProtocolLevel } from "./versions.ts";

export class RunScope {
  /** Whether a STATE_SNAPSHOT went out in this run: a STATE_DELTA may only follow one. */
  snapshotSent = false;
  readonly usage: TokenUsage[] = [];
  private readonly text = new Set<string>();
  private readonly reasoning = new Set<string>();
  private readonly toolCalls = new Set<string>();
  /** taskId -> step name. Keyed by task because task.completed names the task, not the step. */
  private readonly steps = new Map<string, string>();
  /** The names in `steps`, so that opening a step does not scan every open one. */
  private readonly stepNames = new Set<string>();
  /** Subagent runs started and not ended in this run (project-subagents.ts). */
  private readonly subagents = new Set<string>();
  /**
   * The child run whose event is being projected (set by the Projector around each event), and
   * the child that opened each open message, call and step: a close that the run's end makes
   * is the opener's (1.0 refuses an END attributed to another owner than its START's).
   */
  attributing: string | undefined = undefined;
  private readonly owners = new Map<string, string>();

  private own(key: string): void {
    if (this.attributing !== undefined) this.owners.set(key, this.attributing);
  }

  /** The close frame of `key`, attributed to its opener in a 1.0 run. */
  private closed(key: string, ev: AGUIEvent): AGUIEvent {
    const owner = this.owners.get(key);
    if (owner === undefined) return ev;
    this.owners.delete(key);
    return this.level === "1.0" ? ({ ...ev, subagentRunId: owner } as AGUIEvent) : ev;
  }

  /**
   * `level`: the forms this run's frames take for the stream's reader (protocol/versions.ts);
   * `requestId`: the request that posted the run, which its RUN_ERROR names.
   */
  constructor(
    readonly runId: string,
    readonly level: ProtocolLevel = "legacy",
    readonly requestId?: string,
  ) {}

  openText(messageId: string, out: AGUIEvent[], role: TextMessageRole = "assistant"): boolean {
    if (this.text.has(messageId)) return false;
    this.text.add(messageId);
    this.own(`t:${messageId}`);
    out.push({ type: EventType.TEXT_MESSAGE_START, messageId, role });
    return true;
  }

  textDelta(messageId: string, delta: string, out: AGUIEvent[]): void {
    if (this.text.has(messageId)) out.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta });
  }

  closeText(messageId: string, out: AGUIEvent[]): void {
    if (this.text.delete(messageId)) out.push(this.closed(`t:${messageId}`, { type: EventType.TEXT_MESSAGE_END, messageId }));
  }

  /** A reasoning span and its one message share the id: the client keeps the two apart. */
  openReasoning(messageId: string, out: AGUIEvent[]): boolean {
    if (this.reasoning.has(messageId)) return false;
    this.reasoning.add(messageId);
    this.own(`r:${messageId}`);
    out.push(
      { type: EventType.REASONING_START, messageId },
      { type: EventType.REASONING_MESSAGE_START, messageId, role: "reasoning" },
    );
    return true;
  }

  reasoningDelta(messageId: string, delta: string, out: AGUIEvent[]): void {
    if (this.reasoning.has(messageId)) out.push({ type: EventType.REASONING_MESSAGE_CONTENT, messageId, delta });
  }

  closeReasoning(messageId: string, out: AGUIEvent[]): void {
    if (!this.reasoning.delete(messageId)) return;
    const owner = this.owners.get(`r:${messageId}`);
    out.push(this.closed(`r:${messageId}`, { type: EventType.REASONING_MESSAGE_END, messageId }));
    if (owner !== undefined) this.owners.set(`r:${messageId}`, owner);
    out.push(this.closed(`r:${messageId}`, { type: EventType.REASONING_END, messageId }));
  }

  openToolCall(toolCallId: string, toolCallName: string, parentMessageId: string, out: AGUIEvent[]): boolean {
    if (this.toolCalls.has(toolCallId)) return false;
    this.toolCalls.add(toolCallId);
    this.own(`c:${toolCallId}`);
    out.push({ type: EventType.TOOL_CALL_START, toolCallId, toolCallName, parentMessageId });
    return true;
  }

  toolCallArgs(toolCallId: string, delta: string, out: AGUIEvent[]): void {
    if (this.toolCalls.has(toolCallId)) out.push({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta });
  }

  closeToolCall(toolCallId: string, out: AGUIEvent[]): void {
    if (this.toolCalls.delete(toolCallId)) out.push(this.closed(`c:${toolCallId}`, { type: EventType.TOOL_CALL_END, toolCallId }));
  }

  /** Step names are unique among open steps (the client keys steps by name). */
  openStep(taskId: string, stepName: string, out: AGUIEvent[]): void {
    if (this.steps.has(taskId) || this.stepNames.has(stepName)) return;
    this.steps.set(taskId, stepName);
    this.stepNames.add(stepName);
    this.own(`s:${taskId}`);
    out.push({ type: EventType.STEP_STARTED, stepName });
  }

  closeStep(taskId: string, out: AGUIEvent[]): void {
    const stepName = this.steps.get(taskId);
    if (stepName === undefined) return;
    this.steps.delete(taskId);
    this.stepNames.delete(stepName);
    out.push(this.closed(`s:${taskId}`, { type: EventType.STEP_FINISHED, stepName }));
  }

  /** False if the child is open in this run already. */
  openSubagent(childRunId: string): boolean {
    if (this.subagents.has(childRunId)) return false;
    this.subagents.add(childRunId);
    return true;
  }

  closeSubagent(childRunId: string): boolean {
    return this.subagents.delete(childRunId);
  }

  openSubagents(): string[] {
    return [...this.subagents];
  }

  /**
   * Closes everything, innermost first (tool calls, text, reasoning, then steps), in the order each
   * was opened. Used before a terminal frame and on recovery, when the worker that streamed them
   * is gone and nothing will close them otherwise. `keep`: messages a recovered run goes on
   * streaming (workflow.resumed `continues`), left open.
   */
  closeAll(out: AGUIEvent[], keep: ReadonlySet<string> = new Set()): void {
    for (const id of [...this.toolCalls]) this.closeToolCall(id, out);
    for (const id of [...this.text]) if (!keep.has(id)) this.closeText(id, out);
    for (const id of [...this.reasoning]) if (!keep.has(id)) this.closeReasoning(id, out);
    for (const taskId of [...this.steps.keys()]) this.closeStep(taskId, out);
  }
}
