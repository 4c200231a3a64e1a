/**
 * The app's addresses. `/t/<threadId>` is the Threadline agent (`default`) on a thread;
 * `/demos/<feature>/t/<threadId>` a feature demo agent; `/` and `/demos/<feature>` start a new
 * thread there. A reload of any of them restores the same conversation.
 */
export interface Route {
  /** The demo feature's slug, or null for the Threadline agent. */
  feature: string | null;
  /** null: no thread in the address yet (a new one is minted). */
  threadId: string | null;
}

export function parseRoute(pathname: string): Route {
  const demo = /^\/demos\/([a-z0-9-]+)(?:\/t\/([^/]+))?\/?$/.exec(pathname);
  if (demo) return { feature: demo[1]!, threadId: demo[2] ? decodeURIComponent(demo[2]) : null };
  const thread = /^\/t\/([^/]+)\/?$/.exec(pathname);
  return { feature: null, threadId: thread ? decodeURIComponent(thread[1]!) : null };
}

export function pathFor(feature: string | null, threadId?: string): string {
  const base = feature ? `/demos/${feature}` : "";
  return threadId ? `${base}/t/${encodeURIComponent(threadId)}` : base || "/";
}
