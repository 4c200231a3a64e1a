/**
 * The coding cards' outputs as the log keeps them: `terminal.output` (each chunk with its stream,
 * ANSI colours and all) and `artifact.written` (an edit's real unified diff, with its context and
 * line numbers), read from GET /api/threads/:id/events. After a reload the connect replays no
 * finished run's stream, so without this a terminal card fell back to the result's text (stdout and
 * stderr merged) and an edit card to a diff of the call's own old_string/new_string (a one-line
 * hunk numbered from 1). Folded apart from the live stream (streams.ts, the same fold), so
 * nothing is counted twice; the cards take the live fold first, then this, then the result.
 * Terminal output is compacted some time after a run (retention): then the result stands in.
 */
import { authHeaders } from "../api.ts";
import { EMPTY_FOLD, foldCoding, type CodingFold } from "./streams.ts";

/** Bound on what one page load reads: the thread's first 20,000 events. */
const PAGE = 1000;
const MAX_PAGES = 20;

interface LoggedEvent {
  seq: number;
  type: string;
  data: Record<string, unknown>;
}

export async function readLoggedOutputs(threadId: string, signal: AbortSignal): Promise<CodingFold> {
  let fold = EMPTY_FOLD;
  let after = 0;
  for (let page = 0; page < MAX_PAGES; page++) {
    const res = await fetch(`/api/threads/${encodeURIComponent(threadId)}/events?after=${after}&limit=${PAGE}`, { headers: authHeaders(), signal });
    if (res.status === 404) return fold; // no run yet
    if (!res.ok) throw new Error(`The thread's log could not be read: ${res.status} ${res.statusText}`);
    const body = (await res.json()) as { events: LoggedEvent[]; next: number | null };
    for (const e of body.events) {
      if (e.type === "terminal.output") fold = foldCoding(fold, { kind: "custom", name: "terminal", value: e.data });
      else if (e.type === "artifact.written") fold = foldCoding(fold, { kind: "custom", name: "artifact", value: e.data });
    }
    if (body.next === null) return fold;
    after = body.next;
  }
  return fold;
}
