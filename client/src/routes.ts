/**
 * The app's addresses. `/t/<threadId>` is the home agent on a thread (`default` when the server
 * hosts it, else its first agent); `/demos/<feature>/t/<threadId>` a feature demo agent;
 * `/agents/<agentId>/t/<threadId>` any other agent the server hosts; without `/t/...` each starts
 * a new thread there. A reload of any of them restores the same conversation.
 */

/** Where in the app: the home agent (null), a demo feature's page, or an agent by id. */
export type Place = null | { feature: string } | { agentId: string };

export interface Route {
  place: Place;
  /** null: no thread in the address yet (a new one is minted). */
  threadId: string | null;
}

const decode = (part: string | undefined) => (part ? decodeURIComponent(part) : null);

export function parseRoute(pathname: string): Route {
  const demo = /^\/demos\/([a-z0-9-]+)(?:\/t\/([^/]+))?\/?$/.exec(pathname);
  if (demo) return { place: { feature: demo[1]! }, threadId: decode(demo[2]) };
  const agent = /^\/agents\/([^/]+)(?:\/t\/([^/]+))?\/?$/.exec(pathname);
  if (agent) return { place: { agentId: decodeURIComponent(agent[1]!) }, threadId: decode(agent[2]) };
  const thread = /^\/t\/([^/]+)\/?$/.exec(pathname);
  return { place: null, threadId: decode(thread?.[1]) };
}

export function pathFor(place: Place, threadId?: string): string {
  const base = place === null ? "" : "feature" in place ? `/demos/${place.feature}` : `/agents/${encodeURIComponent(place.agentId)}`;
  return threadId ? `${base}/t/${encodeURIComponent(threadId)}` : base || "/";
}
