/**
 * A subagent's pen: the parent's writer, with every event attributed to the child run
 * (protocol/subagent-events.ts). What it changes, and why here, once:
 * - `data.subagentRunId` on every event, unless a deeper child set its own already (a child's
 *   child writes through this pen too);
 * - the message of a message.appended carries `subagentRunId` (AG-UI 1.0's Message field), so
 *   the thread's conversation says whose it is and the parent's model leaves it out;
 * - a task's step name is prefixed with the child run: two children of one turn both have an
 *   `llm-request-1`, and a legacy client, which gets no subagentRunId, keys steps by name alone.
 */
import type { StoredEvent, WorkflowEvent } from "../../protocol/events.ts";
import type { RunPen } from "./run-writer.ts";

export function attribute(e: WorkflowEvent, child: string): WorkflowEvent {
  if (e.data.subagentRunId !== undefined) return e;
  if (e.type === "message.appended") {
    const message = e.data.message.subagentRunId === undefined ? { ...e.data.message, subagentRunId: child } : e.data.message;
    return { ...e, data: { ...e.data, message, subagentRunId: child } };
  }
  if (e.type === "task.created") return { ...e, data: { ...e.data, name: `${child}/${e.data.name}`, subagentRunId: child } };
  return { ...e, data: { ...e.data, subagentRunId: child } } as WorkflowEvent;
}

export function attributedPen(writer: RunPen, child: string): RunPen {
  return {
    emit: (...events: WorkflowEvent[]) => writer.emit(...events.map((e) => attribute(e, child))),
    flush: (): Promise<StoredEvent[]> => writer.flush(),
    commit: (...events: WorkflowEvent[]) => writer.commit(...events.map((e) => attribute(e, child))),
  };
}
