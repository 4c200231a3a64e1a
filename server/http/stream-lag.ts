/**
 * threadline_stream_lag_seconds: from the commit of an event to the moment its frames were
 * written, for the live part of a stream (a replay's events are old on purpose).
 *
 * Measured where the frames are pulled (runFrames, connectFrames): a caller asks for the next
 * frame once it has written the last one (the SSE routes await the socket's write; the CopilotKit
 * runner hands it to the runtime's subscriber), so both doors are measured by one rule. The
 * commit time is this process's clock at the hand-over when the event was committed here
 * (EventStore.committedHereAt), else the database's `at` (another instance's commit, or a stream
 * that fell behind and read the log): then the lag includes the commit itself and any clock skew
 * between the database and this host, which the `source` label keeps apart.
 */
import type { StoredEvent } from "../../protocol/events.ts";
import type { Metrics } from "../metrics.ts";
import type { EventStore } from "../store/types.ts";

export function streamLag(store: EventStore, metrics: Metrics | undefined): (event: StoredEvent) => void {
  if (!metrics) return () => {};
  const handover = metrics.streamLag.labels("handover");
  const log = metrics.streamLag.labels("log");
  return (event) => {
    const now = Date.now();
    const here = store.committedHereAt(event);
    if (here !== undefined) handover.observe(Math.max(0, now - here) / 1000);
    else log.observe(Math.max(0, now - event.at) / 1000);
  };
}
