/**
 * Which agent the page talks to: the home agent (`default`: every feature at once), one feature
 * demo per page, or any other agent the server hosts; only what the server hosts is listed
 * (agents.ts). Plain links: a page load gives each agent a clean CopilotKit registry.
 */
import { homeAgentId, hostedDemos, otherAgents } from "../agents.ts";
import type { AgentInfo } from "../api.ts";
import { type Place, pathFor } from "../routes.ts";

export function DemoPicker({ agents, current }: { agents: readonly AgentInfo[]; current: Place }) {
  const home = homeAgentId(agents);
  const isCurrent = (place: Place) => JSON.stringify(place) === JSON.stringify(current);
  return (
    <nav className="demo-picker" data-testid="demo-picker" aria-label="Agents">
      <h2>Agents</h2>
      <ul>
        {home && (
          <li className={isCurrent(null) ? "current" : ""}>
            <a href={pathFor(null)} data-testid="demo-link" data-feature="" data-agent={home}>
              {home === "default" ? "Threadline (all features)" : home}
            </a>
          </li>
        )}
        {hostedDemos(agents).map((d) => (
          <li key={d.slug} className={isCurrent({ feature: d.slug }) ? "current" : ""}>
            <a href={pathFor({ feature: d.slug })} data-testid="demo-link" data-feature={d.slug} data-agent={d.agentId}>
              {d.title}
            </a>
          </li>
        ))}
        {otherAgents(agents).map((a) => (
          <li key={a.id} className={isCurrent({ agentId: a.id }) ? "current" : ""}>
            <a href={pathFor({ agentId: a.id })} data-testid="agent-link" data-agent={a.id} title={a.description}>
              {a.id}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
