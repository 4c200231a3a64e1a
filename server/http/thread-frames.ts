/**
 * A thread's AG-UI frames, live: the log read from its start and then followed, each event
 * pushed through the projection. Live streaming and replay are the same code, so a client that
 * resumes from any cursor gets exactly the frames a client that never left got after it.
 *
 * Reading from seq 1 (rather than from the cursor) is what keeps it exact: the projection's
 * state (open messages, the shared state for STATE_SNAPSHOT, the run's input) is a fold over the
 * whole thread. Replaying 10K events costs tens of milliseconds; a projection checkpoint table
 * is the optimisation to add if threads ever grow past that.
 */
import type { StoredEvent } from "../../protocol/events.ts";
import type { Frame } from "../../protocol/frames.ts";
import { Projector } from "../../protocol/project.ts";
import type { EventStore } from "../store/types.ts";

export interface ProjectedEvent {
  event: StoredEvent;
  frames: Frame[];
}

export async function* threadFrames(
  store: EventStore,
  threadId: string,
  signal: AbortSignal,
): AsyncIterable<ProjectedEvent> {
  const projector = new Projector(threadId);
  for await (const batch of store.follow(threadId, 0, signal)) {
    for (const event of batch) yield { event, frames: projector.push(event) };
  }
}

export function isTerminalFrame(frame: Frame): boolean {
  return frame.event.type === "RUN_FINISHED" || frame.event.type === "RUN_ERROR";
}
