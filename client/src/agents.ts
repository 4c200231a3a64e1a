/**
 * Which agent a page talks to, from the agents the server says it hosts (GET /api/agents): the
 * app works with whatever the application defines. The home page is `default` when hosted (the
 * agent with every feature), else the first agent listed; a demo page exists only when its agent
 * does. Rejected: hard-wiring `default`, which left an application of its own agents a blank page.
 */
import type { AgentInfo } from "./api.ts";
import type { DemoFeature } from "./demos/feature.ts";
import { DEMOS, demoBySlug } from "./demos/index.ts";
import type { Place } from "./routes.ts";

export type PagePlan = { ok: true; agentId: string; demo?: DemoFeature } | { ok: false; reason: string };

export function homeAgentId(agents: readonly AgentInfo[]): string | null {
  return agents.find((a) => a.id === "default")?.id ?? agents[0]?.id ?? null;
}

export function planPage(place: Place, agents: readonly AgentInfo[]): PagePlan {
  const hosted = (id: string) => agents.some((a) => a.id === id);
  if (place === null) {
    const home = homeAgentId(agents);
    return home ? { ok: true, agentId: home } : { ok: false, reason: "This server hosts no agents: give createThreadline at least one in `agents`." };
  }
  if ("feature" in place) {
    const demo = demoBySlug(place.feature);
    if (!demo) return { ok: false, reason: `There is no demo page "${place.feature}". Pick an agent on the left.` };
    if (!hosted(demo.agentId)) return { ok: false, reason: `The "${demo.title}" demo needs the agent "${demo.agentId}", which this server does not host. Pick an agent on the left.` };
    return { ok: true, agentId: demo.agentId, demo };
  }
  if (!hosted(place.agentId)) return { ok: false, reason: `This server hosts no agent "${place.agentId}". Pick one on the left.` };
  return { ok: true, agentId: place.agentId };
}

/** The demo pages whose agent the server hosts. */
export function hostedDemos(agents: readonly AgentInfo[]): DemoFeature[] {
  return DEMOS.filter((d) => agents.some((a) => a.id === d.agentId));
}

/** The hosted agents that have no page of their own yet (not the home agent, no demo's). */
export function otherAgents(agents: readonly AgentInfo[]): AgentInfo[] {
  const home = homeAgentId(agents);
  return agents.filter((a) => a.id !== home && !DEMOS.some((d) => d.agentId === a.id));
}
