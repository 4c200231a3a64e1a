/** Agentic chat: plain chat, plus the page's change_background tool, run here in the browser. */
import { useThreadAgent } from "../thread-agent.ts";
import { backgroundFrom, useChangeBackgroundTool } from "../components/FrontendTools.tsx";
import type { DemoFeature } from "./feature.ts";

function Tools() {
  useChangeBackgroundTool();
  return null;
}

function Panel() {
  const agent = useThreadAgent();
  const background = backgroundFrom(agent.messages as never[]);
  return (
    <section className="panel" data-testid="background-panel">
      <h2>Page background</h2>
      <p>
        <span className="swatch big" style={{ background }} /> <code data-testid="background-value">{background ?? "default"}</code>
      </p>
      <p className="muted">The agent changes it by calling the page's own tool; the handler runs here, and its result goes back to the agent.</p>
    </section>
  );
}

export const agenticChat: DemoFeature = {
  slug: "agentic-chat",
  agentId: "agentic_chat",
  title: "Agentic chat",
  summary: "A conversation that streams, and can call tools the page brings: change_background is a frontend tool (useFrontendTool).",
  prompts: ["Change the background to teal", "Hello!"],
  Tools,
  Panel,
};
