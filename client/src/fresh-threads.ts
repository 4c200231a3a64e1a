/**
 * Thread ids this tab minted and has not yet seen a run start on. The server creates a thread with
 * its first run, so until then asking for it (GET /api/threads/:id, its events) can only answer
 * 404, which the browser logs as an error. Kept in sessionStorage, so a reload of a new, empty
 * conversation still knows not to ask; bounded, since abandoned new threads are never cleared.
 */
const KEY = "threadline.freshThreads";
const MAX = 50;

function read(): string[] {
  try {
    const v: unknown = JSON.parse(sessionStorage.getItem(KEY) ?? "[]");
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}

function write(ids: string[]): void {
  sessionStorage.setItem(KEY, JSON.stringify(ids.slice(-MAX)));
}

/** A new thread id, remembered as not yet existing on the server. */
export function mintThreadId(): string {
  const id = crypto.randomUUID();
  write([...read(), id]);
  return id;
}

export function isFresh(threadId: string): boolean {
  return read().includes(threadId);
}

/** The thread's first run started: from now on the server knows it. */
export function markStarted(threadId: string): void {
  const ids = read();
  if (ids.includes(threadId)) write(ids.filter((id) => id !== threadId));
}
