/** A thread row as the thread API answers it; the list adds its title, archive and waiting marks. */
import { wireRunId } from "../../../protocol/run-ids.ts";
import type { ThreadListing, ThreadRow } from "../../store/types.ts";

export function threadJson(t: ThreadRow) {
  return {
    threadId: t.threadId,
    agentId: t.agentId,
    status: t.status,
    activeRunId: t.activeRunId === null ? null : wireRunId(t.activeRunId),
    lastSeq: t.lastSeq,
    createdAt: new Date(t.createdAt).toISOString(),
    updatedAt: new Date(t.updatedAt).toISOString(),
  };
}

export function listingJson(t: ThreadListing) {
  return {
    ...threadJson(t),
    title: t.title,
    titleSet: t.titleSet,
    archived: t.archivedAt !== null,
    ...(t.archivedAt !== null && { archivedAt: new Date(t.archivedAt).toISOString() }),
    waitingForYou: t.waitingForYou,
  };
}
