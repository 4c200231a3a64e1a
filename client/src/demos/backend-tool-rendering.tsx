/**
 * Backend tool rendering: get_weather runs on the server; the chat draws its call and result as
 * the weather card (useRenderTool in components/ToolCards.tsx, registered for every page).
 */
import { useThreadAgent } from "../thread-agent.ts";
import type { DemoFeature } from "./feature.ts";
import { toolCallsOf } from "./tool-calls.ts";

interface Weather {
  location: string;
  temperature: number;
  conditions: string;
}

function Panel() {
  const agent = useThreadAgent();
  const calls = toolCallsOf<{ location: string }>(agent.messages, "get_weather");
  return (
    <section className="panel" data-testid="weather-log">
      <h2>Tool calls</h2>
      {calls.length === 0 && <p className="muted">No get_weather call yet.</p>}
      <ul className="plain">
        {calls.map((c) => {
          const w = c.result as Partial<Weather> | undefined;
          return (
            <li key={c.id} data-testid="weather-log-item">
              <code>get_weather({JSON.stringify(c.args)})</code> →{" "}
              {typeof w?.temperature === "number" ? `${w.temperature}°C, ${w.conditions}` : <span className="muted">running…</span>}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

export const backendToolRendering: DemoFeature = {
  slug: "backend-tool-rendering",
  agentId: "backend_tool_rendering",
  title: "Backend tool rendering",
  summary: "The agent's own tool (get_weather) runs on the server; the client renders its call and result as a card with useRenderTool.",
  prompts: ["What's the weather in Paris?", "Check the weather in Paris and Tokyo in parallel"],
  Panel,
};
