/**
 * Tool-based generative UI: the agent's answer is a call to the page's generate_haiku tool, and
 * the call's arguments are drawn as a card, while they stream and after. The handler only
 * acknowledges: the haiku is already on screen.
 */
import { useFrontendTool } from "@copilotkit/react-core/v2";
import { z } from "zod";
import { useThreadAgent } from "../thread-agent.ts";
import type { DemoFeature } from "./feature.ts";
import { toolCallsOf } from "./tool-calls.ts";

const HaikuArgs = z.object({
  japanese: z.array(z.string()).describe("The haiku's three lines in Japanese"),
  english: z.array(z.string()).describe("The same three lines in English"),
  gradient: z.string().describe("A CSS gradient that suits the haiku's mood"),
});
type Haiku = z.infer<typeof HaikuArgs>;

function HaikuCard({ haiku, testId = "haiku-card" }: { haiku: Partial<Haiku>; testId?: string }) {
  const japanese = haiku.japanese ?? [];
  const english = haiku.english ?? [];
  return (
    <figure className="haiku" data-testid={testId} style={haiku.gradient ? { background: haiku.gradient } : undefined}>
      {japanese.length === 0 && english.length === 0 && <span className="haiku-wait">Composing…</span>}
      {japanese.map((line, i) => (
        <div key={i} className="haiku-line">
          <span lang="ja">{line}</span>
          <span className="haiku-en">{english[i] ?? ""}</span>
        </div>
      ))}
    </figure>
  );
}

function Tools() {
  useFrontendTool(
    {
      name: "generate_haiku",
      description: "Show the user a haiku: three lines in Japanese, their English translation, and a background gradient.",
      parameters: HaikuArgs,
      handler: async () => "The haiku is shown to the user.",
      render: (p) => <HaikuCard haiku={p.args as Partial<Haiku>} />,
    },
    [],
  );
  return null;
}

function Panel() {
  const agent = useThreadAgent();
  const latest = toolCallsOf<Haiku>(agent.messages, "generate_haiku").at(-1);
  return (
    <section className="panel" data-testid="haiku-panel">
      <h2>Latest haiku</h2>
      {latest ? <HaikuCard haiku={latest.args} testId="haiku-latest" /> : <p className="muted">Ask for a haiku about anything.</p>}
    </section>
  );
}

export const toolBasedGenerativeUi: DemoFeature = {
  slug: "tool-based-generative-ui",
  agentId: "tool_based_generative_ui",
  title: "Tool-based generative UI",
  summary: "The agent answers by calling the page's generate_haiku tool; its arguments are the UI, drawn as a card while they stream.",
  prompts: ["Write a haiku about the moon", "A haiku about a frog"],
  Tools,
  Panel,
};
