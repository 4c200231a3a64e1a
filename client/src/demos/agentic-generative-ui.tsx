/**
 * Agentic generative UI: the plan's steps live in the shared state (state.steps), patched by the
 * dojo's reference tool generate_task_steps_generative_ui step by step; the card in the chat and
 * the panel are drawn from the state alone. While the model still writes the call, the steps are
 * predicted into state without a status yet: drawn as pending. Each card draws the state its own
 * call left (state-at-call.ts), so a second plan does not redraw the first one's card; the panel
 * draws the latest. A cancelled run's open steps are marked cancelled by the server.
 */
import { useRenderTool } from "@copilotkit/react-core/v2";
import { z } from "zod";
import { useStateAtCall } from "../state-at-call.ts";
import { useThreadAgent } from "../thread-agent.ts";
import type { DemoFeature } from "./feature.ts";
import { RawState } from "./RawState.tsx";

const TOOL = "generate_task_steps_generative_ui";

const StepsState = z.object({
  steps: z.array(z.object({ description: z.string(), status: z.enum(["pending", "running", "completed", "cancelled"]).optional() })).optional(),
});

function PlanSteps({ state }: { state: unknown }) {
  const parsed = StepsState.safeParse(state ?? {});
  const steps = parsed.success ? (parsed.data.steps ?? []) : [];
  const done = steps.filter((s) => s.status === "completed").length;
  if (steps.length === 0) return <p className="muted">Waiting for the plan…</p>;
  return (
    <div className="plan" data-testid="plan-steps" data-done={done} data-total={steps.length}>
      <h3>
        Plan <span className="muted">({done}/{steps.length})</span>
      </h3>
      <div className="progress">
        <div className="progress-bar" style={{ width: `${(100 * done) / steps.length}%` }} />
      </div>
      <ol className="plan-steps">
        {steps.map((s, i) => (
          <li key={i} className={s.status === "completed" ? "done" : s.status === "running" ? "active" : s.status === "cancelled" ? "muted" : ""} data-testid="plan-step" data-status={s.status ?? "pending"}>
            {s.status === "completed" ? "✓" : s.status === "running" ? "▸" : s.status === "cancelled" ? "✕" : "○"} {s.description}
            {s.status === "cancelled" && <span className="muted"> (cancelled)</span>}
          </li>
        ))}
      </ol>
    </div>
  );
}

/** The plan as this card's own call left it (live while it runs). */
function PlanCard({ toolCallId }: { toolCallId: string }) {
  const state = useStateAtCall(toolCallId);
  return (
    <div className="tool-card" data-testid="tool-card" data-tool={TOOL} data-tool-call-id={toolCallId}>
      <PlanSteps state={state} />
    </div>
  );
}

function Tools() {
  useRenderTool(
    {
      name: TOOL,
      parameters: z.object({ steps: z.array(z.object({ description: z.string(), status: z.string().optional() })) }),
      // The card draws the state, not the call's arguments: the steps' progress is only there.
      render: ({ toolCallId }) => <PlanCard toolCallId={toolCallId} />,
    },
    [],
  );
  return null;
}

function Panel() {
  const agent = useThreadAgent();
  return (
    <section className="panel" data-testid="plan-panel">
      <h2>Plan (from shared state)</h2>
      <PlanSteps state={agent.state} />
      <RawState />
    </section>
  );
}

export const agenticGenerativeUi: DemoFeature = {
  slug: "agentic-generative-ui",
  agentId: "agentic_generative_ui",
  title: "Agentic generative UI",
  summary: "A long task whose progress is the UI: generate_task_steps_generative_ui patches state.steps as it works (STATE_DELTA), and the page draws the plan from state.",
  prompts: ["Make a plan to launch the website", "Help me move house"],
  Tools,
  Panel,
};
