/** The top of a demo page: which capability it shows, how, and what to type (the offline script's prompts). */
import type { DemoFeature } from "./feature.ts";

export function DemoIntro({ feature }: { feature: DemoFeature }) {
  return (
    <section className="panel demo-intro" data-testid="demo-intro" data-feature={feature.slug}>
      <h2>
        {feature.title} <code className="agent-id">{feature.agentId}</code>
      </h2>
      <p>{feature.summary}</p>
      <p className="muted try">
        Try:{" "}
        {feature.prompts.map((p, i) => (
          <span key={p}>
            {i > 0 && " · "}
            <q>{p}</q>
          </span>
        ))}
      </p>
    </section>
  );
}
