/**
 * Which agent the page talks to: the Threadline agent (every feature at once) or one feature demo
 * per page. Plain links: a page load gives each agent a clean CopilotKit registry.
 */
import { pathFor } from "../routes.ts";
import { DEMOS } from "./index.ts";

export function DemoPicker({ current }: { current: string | null }) {
  return (
    <nav className="demo-picker" data-testid="demo-picker" aria-label="Agents">
      <h2>Agents</h2>
      <ul>
        <li className={current === null ? "current" : ""}>
          <a href={pathFor(null)} data-testid="demo-link" data-feature="">
            Threadline (all features)
          </a>
        </li>
        {DEMOS.map((d) => (
          <li key={d.slug} className={current === d.slug ? "current" : ""}>
            <a href={pathFor(d.slug)} data-testid="demo-link" data-feature={d.slug}>
              {d.title}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
