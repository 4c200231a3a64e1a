/**
 * The agent's shared state, live: the task list (`state.tasks`) and the plan (`state.plan`).
 * The user can tick, add and remove tasks; CopilotKit sends the whole state with the next run,
 * so the agent sees the edits then. Editing is off while a run is going.
 */
import { useThreadAgent } from "../thread-agent.ts";
import { AddForm, RemoveButton } from "./ListEditing.tsx";

interface Task {
  id: string;
  title: string;
  done: boolean;
}

interface PlanStep {
  title?: string;
  name?: string;
  description?: string;
  status?: string;
  done?: boolean;
}

function asTasks(v: unknown): Task[] {
  return Array.isArray(v) ? (v.filter((t) => t && typeof t === "object") as Task[]) : [];
}

function stepLabel(s: unknown): string {
  if (typeof s === "string") return s;
  const step = s as PlanStep;
  return step.title ?? step.name ?? step.description ?? JSON.stringify(s);
}

function stepDone(s: unknown): boolean {
  const step = s as PlanStep;
  return typeof s === "object" && s !== null && (step.done === true || step.status === "done" || step.status === "completed" || step.status === "complete");
}

function stepCancelled(s: unknown): boolean {
  return (s as PlanStep | null)?.status === "cancelled";
}

function stepActive(s: unknown): boolean {
  const status = (s as PlanStep | null)?.status;
  return typeof s === "object" && s !== null && (status === "running" || status === "in_progress" || status === "active");
}

type SharedState = { tasks?: unknown; plan?: Plan } & Record<string, unknown>;

interface Plan {
  goal?: string;
  steps?: unknown[];
}

/** `live`: a run is going, so a step marked running really is; otherwise it was left unfinished. */
export function StatePanel({ editable, live }: { editable: boolean; live: boolean }) {
  const agent = useThreadAgent();
  const state = (agent.state ?? {}) as SharedState;
  return (
    <section className="panel" data-testid="state-panel">
      <h2>Shared state</h2>
      <TaskList tasks={asTasks(state.tasks)} editable={editable} setTasks={(next) => agent.setState({ ...state, tasks: next })} />
      {state.plan && <PlanView plan={state.plan} live={live} />}
      <details className="raw-state">
        <summary>Raw state</summary>
        <pre data-testid="raw-state">{JSON.stringify(agent.state ?? {}, null, 2)}</pre>
      </details>
    </section>
  );
}

/** The tasks the user can tick, add and remove; the agent sees the edits with its next run. */
function TaskList({ tasks, editable, setTasks }: { tasks: Task[]; editable: boolean; setTasks: (next: Task[]) => void }) {
  return (
    <>
      <h3>Tasks</h3>
      {tasks.length === 0 && <p className="muted">No tasks yet. Ask the agent to add one, or add your own.</p>}
      <ul className="tasks" data-testid="task-list">
        {tasks.map((t) => (
          <li key={t.id} data-testid="task-item" data-task-id={t.id} data-done={t.done ? "true" : "false"}>
            <label>
              <input
                type="checkbox"
                checked={t.done}
                disabled={!editable}
                onChange={() => setTasks(tasks.map((x) => (x.id === t.id ? { ...x, done: !x.done } : x)))}
              />
              <span className={t.done ? "done" : ""}>{t.title}</span>
            </label>
            <RemoveButton disabled={!editable} onRemove={() => setTasks(tasks.filter((x) => x.id !== t.id))} />
          </li>
        ))}
      </ul>
      <AddForm
        placeholder="Add a task…"
        disabled={!editable}
        inputTestId="task-input"
        buttonTestId="task-add"
        onAdd={(title) => setTasks([...tasks, { id: `task-${Date.now().toString(36)}`, title, done: false }])}
      />
    </>
  );
}

/** The agent's plan, read only: its steps and how many are done. */
function PlanView({ plan, live }: { plan: Plan; live: boolean }) {
  const steps = plan.steps ?? [];
  const done = steps.filter(stepDone).length;
  return (
    <div className="plan" data-testid="plan">
      <h3>
        Plan{plan.goal ? `: ${plan.goal}` : ""} <span className="muted">({done}/{steps.length})</span>
      </h3>
      <div className="progress" data-testid="plan-progress" data-done={done} data-total={steps.length}>
        <div className="progress-bar" style={{ width: `${steps.length ? (100 * done) / steps.length : 0}%` }} />
      </div>
      <ol className="plan-steps">
        {steps.map((s, i) => (
          <li
            key={i}
            className={stepDone(s) ? "done" : live && stepActive(s) ? "active" : stepCancelled(s) ? "cancelled muted" : ""}
            data-testid="plan-step"
            data-status={(s as PlanStep | null)?.status ?? "pending"}
          >
            {stepDone(s) ? "✓" : live && stepActive(s) ? "▸" : stepCancelled(s) ? "✕" : "○"} {stepLabel(s)}
            {stepCancelled(s) && <span className="muted"> (cancelled)</span>}
          </li>
        ))}
      </ol>
    </div>
  );
}
