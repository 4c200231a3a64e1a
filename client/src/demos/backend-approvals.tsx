/**
 * Durable interrupts from the app: the `approvals` agent's backend tools stop and ask (send_email
 * needs approval; schedule_meeting asks which slot). The page offers CopilotKit the HITL tool
 * (INTERRUPT_TOOL_NAME), so each question arrives as that tool call and `respond(answer)` sends
 * the answer; the server runs the approved step exactly once, also after a reload or a restart.
 */
import { useHumanInTheLoop } from "@copilotkit/react-core/v2";
import { INTERRUPT_TOOL, INTERRUPT_TOOL_NAME, InterruptToolArgsSchema, type InterruptToolArgs } from "../../../protocol/interrupts.ts";
import { useThreadChrome } from "../chrome-context.ts";
import { useThreadAgent } from "../thread-agent.ts";
import { parseJson } from "../components/ToolCards.tsx";
import { useClosedQuestion } from "../components/closed-question.ts";
import type { DemoFeature } from "./feature.ts";
import { toolCallsOf } from "./tool-calls.ts";

type CardProps = {
  toolCallId: string;
  args: Partial<InterruptToolArgs>;
  status: "inProgress" | "executing" | "complete";
  result?: unknown;
  respond?: (result: unknown) => Promise<void>;
};

function InterruptCard({ toolCallId, args, status, result, respond }: CardProps) {
  // CopilotKit starts the run that carries an answer only when its agent is idle: an answer given
  // while it still handles a reload's connect would be dropped. The buttons wait for it instead.
  const busy = useThreadAgent().isRunning;
  const answer = parseJson(typeof result === "string" ? result : JSON.stringify(result ?? null)) as { approved?: boolean; slot?: string; cancelled?: boolean } | null;
  // The question is about the backend call args.toolCallId: closed by the log, it takes no answer.
  const closed = useClosedQuestion(args.toolCallId);
  const asking = status !== "complete" && respond !== undefined && !closed;
  const state = asking
    ? "asking"
    : status === "complete"
      ? answer?.slot
        ? "answered"
        : answer?.approved
          ? "approved"
          : answer?.cancelled
            ? "cancelled"
            : "denied"
      : closed
        ? "cancelled"
        : "preparing";
  const payload = (args.payload ?? {}) as { to?: string; subject?: string; title?: string; options?: string[] };
  return (
    <div className="tool-card approval" data-testid="interrupt-card" data-tool-call-id={toolCallId} data-kind={args.kind} data-state={state}>
      <div className="tool-card-head">
        <span className="tool-card-title">
          <span className="tool-icon">?</span> {args.kind === "input" ? "Your choice" : `Allow ${args.toolName ?? "the tool"}?`}
        </span>
        {state === "approved" && <span className="chip chip-complete">Approved</span>}
        {state === "denied" && <span className="chip chip-failed">Denied</span>}
        {state === "cancelled" && <span className="chip chip-failed">{closed ? "Closed" : "Expired or cancelled"}</span>}
        {state === "answered" && <span className="chip chip-complete">{answer?.slot}</span>}
      </div>
      <p className="approval-action">{args.message ?? "…"}</p>
      {state === "cancelled" && <p className="muted small" data-testid="closed-reason">Not answered: {closed ?? (answer as { reason?: string } | null)?.reason ?? "closed"}.</p>}
      {payload.to && (
        <p className="muted">
          To {payload.to}: {payload.subject}
        </p>
      )}
      {asking && args.kind === "approval" && (
        <div className="approval-buttons">
          <button type="button" className="btn btn-primary" data-testid="approve-button" disabled={busy} onClick={() => void respond({ approved: true })}>
            Approve
          </button>
          <button type="button" className="btn" data-testid="deny-button" disabled={busy} onClick={() => void respond({ approved: false, reason: "denied in the app" })}>
            Deny
          </button>
        </div>
      )}
      {asking && args.kind === "input" && (
        <div className="approval-buttons">
          {(payload.options ?? []).map((slot) => (
            <button type="button" key={slot} className="btn" data-testid="slot-button" disabled={busy} onClick={() => void respond({ slot })}>
              {slot}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}

function Tools() {
  useHumanInTheLoop(
    {
      name: INTERRUPT_TOOL_NAME,
      description: INTERRUPT_TOOL.description,
      parameters: InterruptToolArgsSchema,
      render: (p) => <InterruptCard toolCallId={p.toolCallId} args={p.args as Partial<InterruptToolArgs>} status={p.status} result={p.result} respond={p.respond} />,
    },
    [],
  );
  return null;
}

/** What the user decided, as the answer (live) or a reload's snapshot (protocol/interrupts.ts withInterrupts) says it. */
function decisionOf(result: unknown): string {
  const a = (typeof result === "object" && result !== null ? result : {}) as { approved?: boolean; editedArgs?: unknown; slot?: string; cancelled?: boolean; reason?: string };
  if (a.cancelled) return a.reason === "expired" ? "expired" : "cancelled";
  if (a.slot) return a.slot;
  if (a.approved) return a.editedArgs ? "approved with edits" : "approved";
  return "denied";
}

function Panel() {
  const agent = useThreadAgent();
  const { detail } = useThreadChrome();
  // A question the log closed unanswered has no result in the live conversation: it is not waiting.
  const closedOf = (toolCallId: string | undefined) => {
    const call = detail?.toolCalls[toolCallId ?? ""];
    return call?.status === "cancelled" || (call?.status === "never_run" && call.reason !== "denied");
  };
  const calls = toolCallsOf<InterruptToolArgs>(agent.messages, INTERRUPT_TOOL_NAME).map((c) =>
    c.result === undefined && closedOf(c.args.toolCallId) ? { ...c, result: { cancelled: true, reason: "superseded" } } : c,
  );
  return (
    <section className="panel" data-testid="interrupts">
      <h2>Questions the agent asked</h2>
      {calls.length === 0 && <p className="muted">Nothing asked yet.</p>}
      <ul className="plain">
        {calls.map((c) => (
          <li key={c.id} data-testid="interrupt" data-answered={c.result === undefined ? "false" : "true"} data-decision={c.result === undefined ? undefined : decisionOf(c.result)}>
            <span className={`chip chip-${c.result === undefined ? "pending" : "complete"}`}>{c.result === undefined ? "waiting" : decisionOf(c.result)}</span>{" "}
            {c.args.toolName}: {c.args.reason}
          </li>
        ))}
      </ul>
    </section>
  );
}

export const backendApprovals: DemoFeature = {
  slug: "backend-approvals",
  agentId: "approvals",
  title: "Durable interrupts",
  summary:
    "Backend tools that stop and ask: send_email needs your approval, schedule_meeting asks for a slot. The thread waits durably; the approved step runs exactly once, even after a reload.",
  prompts: ["Email the team a status update", "Schedule a meeting about the launch"],
  Tools,
  Panel,
};
