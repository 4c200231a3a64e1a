/**
 * The dojo's `interrupt` feature: CopilotKit's own `useInterrupt` (react-core v2) answering the
 * `approvals` agent's backend steps. The page offers no HITL tool (INTERRUPT_TOOL_NAME), so the
 * server ends the asking run with AG-UI 1.0's interrupt outcome (RUN_FINISHED with
 * `outcome.interrupts`), which the hook reads and renders in the chat; `resolve(payload, id)`
 * sends the next run's `resume` under the interrupted run's own runId. Approve, deny, or edit the
 * arguments and approve with edits (`editedArgs`, checked by the server against the tool's input
 * schema). After a reload the connect replays the pending outcome, and the hook asks again.
 *
 * Rejected: rendering the question from GET /api/threads/:id's pendingInterrupts, which would
 * show the question without the hook, which is what this page is for.
 */
import { type Interrupt, useInterrupt } from "@copilotkit/react-core/v2";
import { useState } from "react";
import type { ApprovalAnswer } from "../../../protocol/interrupts.ts";
import { parseJson } from "../components/ToolCards.tsx";
import { useThreadAgent } from "../thread-agent.ts";
import type { DemoFeature } from "./feature.ts";
import { toolCallsOf } from "./tool-calls.ts";

/** What the server puts in an interrupt's metadata (protocol/interrupts.ts wireInterrupt). */
interface InterruptMetadata {
  kind?: "approval" | "input";
  toolName?: string;
  payload?: Record<string, unknown>;
}

type Resolve = (payload?: unknown, interruptId?: string) => Promise<unknown>;

function metadataOf(interrupt: Interrupt): InterruptMetadata {
  const m = interrupt.metadata;
  return typeof m === "object" && m !== null ? (m as InterruptMetadata) : {};
}

/**
 * The order the arguments are shown in: an email's own, then the rest by name. The log keeps the
 * proposed arguments as Postgres jsonb, which does not keep key order (a reload showed body
 * before subject), so the order the model wrote them in is not there to follow.
 */
const FIELD_ORDER = ["to", "subject", "body"];
function fieldRank(k: string): number {
  const i = FIELD_ORDER.indexOf(k);
  return i === -1 ? FIELD_ORDER.length : i;
}
function ordered(args: Record<string, unknown>): [string, unknown][] {
  return Object.entries(args).sort(([a], [b]) => fieldRank(a) - fieldRank(b) || a.localeCompare(b));
}

/** The edit form's fields: the proposed arguments that are text (send_email's to, subject, body). */
function textFields(args: Record<string, unknown>): [string, string][] {
  return ordered(args).flatMap(([k, v]) => (typeof v === "string" ? [[k, v] as [string, string]] : []));
}

function ApprovalCard({ interrupt, resolve }: { interrupt: Interrupt; resolve: Resolve }) {
  // CopilotKit starts the run that carries an answer only when its agent is idle: an answer given
  // while it still handles a reload's connect would be dropped. The buttons wait for it instead.
  const busy = useThreadAgent().isRunning;
  const meta = metadataOf(interrupt);
  const args = meta.payload ?? {};
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState<Record<string, string>>(() => Object.fromEntries(textFields(args)));
  const [sent, setSent] = useState<string | null>(null);
  const answer = (label: string, payload: unknown) => {
    setSent(label);
    // A refused resume (say, edits the tool's schema rejects) comes back as the run's error in
    // the chat; the card is gone by then (CopilotKit clears it when the run starts).
    void resolve(payload, interrupt.id).catch((err: unknown) => console.warn("useInterrupt resolve failed", err));
  };
  const disabled = busy || sent !== null;
  const approve: ApprovalAnswer = { approved: true };
  const deny: ApprovalAnswer = { approved: false, reason: "denied in the app" };
  const edited: ApprovalAnswer = { approved: true, editedArgs: { ...args, ...draft } };
  return (
    <div className="tool-card approval" data-testid="use-interrupt-card" data-interrupt-id={interrupt.id} data-reason={interrupt.reason} data-state={sent ? "sent" : editing ? "editing" : "asking"}>
      <div className="tool-card-head">
        <span className="tool-card-title">
          <span className="tool-icon">?</span> Allow {meta.toolName ?? "the tool"}?
        </span>
        <span className="chip chip-you">{sent ?? interrupt.reason}</span>
      </div>
      <p className="approval-action">{interrupt.message ?? "May the agent go ahead?"}</p>
      {!editing && (
        <dl className="interrupt-args" data-testid="interrupt-args">
          {ordered(args).map(([k, v]) => (
            <div key={k}>
              <dt>{k}</dt>
              <dd data-arg={k}>{typeof v === "string" ? v : JSON.stringify(v)}</dd>
            </div>
          ))}
        </dl>
      )}
      {editing && (
        <form
          className="interrupt-edit"
          data-testid="interrupt-edit"
          onSubmit={(e) => {
            e.preventDefault();
            answer("approved with edits", edited);
          }}
        >
          {Object.keys(draft).map((k) => (
            <label key={k} htmlFor={`${interrupt.id}-${k}`}>
              <span>{k}</span>
              {k === "body" ? (
                <textarea id={`${interrupt.id}-${k}`} name={k} data-testid={`edit-${k}`} rows={3} value={draft[k]} onChange={(e) => setDraft({ ...draft, [k]: e.target.value })} />
              ) : (
                <input id={`${interrupt.id}-${k}`} name={k} data-testid={`edit-${k}`} value={draft[k]} onChange={(e) => setDraft({ ...draft, [k]: e.target.value })} />
              )}
            </label>
          ))}
          <div className="approval-buttons">
            <button type="submit" className="btn btn-primary" data-testid="approve-edited-button" disabled={disabled}>
              Approve with edits
            </button>
            <button type="button" className="btn" data-testid="edit-cancel-button" disabled={disabled} onClick={() => setEditing(false)}>
              Back
            </button>
          </div>
        </form>
      )}
      {!editing && (
        <div className="approval-buttons">
          <button type="button" className="btn btn-primary" data-testid="approve-button" disabled={disabled} onClick={() => answer("approved", approve)}>
            Approve
          </button>
          <button type="button" className="btn" data-testid="edit-button" disabled={disabled || textFields(args).length === 0} onClick={() => setEditing(true)}>
            Edit
          </button>
          <button type="button" className="btn" data-testid="deny-button" disabled={disabled} onClick={() => answer("denied", deny)}>
            Deny
          </button>
        </div>
      )}
    </div>
  );
}

/** A question (schedule_meeting's slot): its payload's options, one button each. */
function ChoiceCard({ interrupt, resolve }: { interrupt: Interrupt; resolve: Resolve }) {
  const busy = useThreadAgent().isRunning;
  const [sent, setSent] = useState<string | null>(null);
  const options = (metadataOf(interrupt).payload?.options ?? []) as string[];
  return (
    <div className="tool-card approval" data-testid="use-interrupt-card" data-interrupt-id={interrupt.id} data-reason={interrupt.reason} data-state={sent ? "sent" : "asking"}>
      <div className="tool-card-head">
        <span className="tool-card-title">
          <span className="tool-icon">?</span> Your choice
        </span>
        <span className="chip chip-you">{sent ?? interrupt.reason}</span>
      </div>
      <p className="approval-action">{interrupt.message ?? "…"}</p>
      <div className="approval-buttons">
        {options.map((slot) => (
          <button
            type="button"
            key={slot}
            className="btn"
            data-testid="slot-button"
            disabled={busy || sent !== null}
            onClick={() => {
              setSent(slot);
              void resolve({ slot }, interrupt.id).catch((err: unknown) => console.warn("useInterrupt resolve failed", err));
            }}
          >
            {slot}
          </button>
        ))}
      </div>
    </div>
  );
}

function Tools() {
  // Rendered inside <CopilotChat> (renderInChat, the default). Every open interrupt gets its
  // card: parallel approvals come in one outcome, and the hook resumes once each is answered.
  useInterrupt({
    render: ({ interrupts, resolve }) => (
      <div className="use-interrupts" data-testid="use-interrupts">
        {interrupts.map((i) =>
          metadataOf(i).kind === "input" ? <ChoiceCard key={i.id} interrupt={i} resolve={resolve} /> : <ApprovalCard key={i.id} interrupt={i} resolve={resolve} />,
        )}
      </div>
    ),
  });
  return null;
}

/** The decision the server kept on send_email's tool message (README: Interrupts). */
interface KeptDecision {
  approval?: "approved" | "edited" | "denied";
  arguments?: { to?: string };
}

/**
 * The decisions by call. The server's tool message carries one (`{"approval": …}`; a reload
 * shows it). Live, CopilotKit holds the copy of the answer useInterrupt added to its messages
 * (`{"approved": …, "editedArgs"?: …}`, which the server does not keep), and in this app's runs
 * it was seen to keep that copy in place of the server's result, so the copy is read too, the
 * server's decision winning where both are there.
 */
function keptDecisions(messages: readonly unknown[]): Map<string, KeptDecision> {
  const kept = new Map<string, KeptDecision>();
  for (const m of messages as { role?: string; toolCallId?: string; content?: unknown }[]) {
    if (m.role !== "tool" || !m.toolCallId || typeof m.content !== "string") continue;
    const d = parseJson(m.content) as (KeptDecision & Partial<ApprovalAnswer>) | null;
    if (!d || typeof d !== "object") continue;
    if (d.approval) kept.set(m.toolCallId, d);
    else if (typeof d.approved === "boolean" && !kept.get(m.toolCallId)?.approval) {
      const copy: KeptDecision = d.editedArgs ? { approval: "edited", arguments: d.editedArgs as { to?: string } } : { approval: d.approved ? "approved" : "denied" };
      kept.set(m.toolCallId, copy);
    }
  }
  return kept;
}

function Panel() {
  const agent = useThreadAgent();
  const calls = toolCallsOf<{ to: string; subject: string }>(agent.messages, "send_email");
  const decisions = keptDecisions(agent.messages);
  const outbox = ((agent.state as { outbox?: { to: string; subject: string }[] } | undefined)?.outbox ?? []) as { to: string; subject: string }[];
  return (
    <section className="panel" data-testid="use-interrupt-panel">
      <h2>Decisions</h2>
      {calls.length === 0 && <p className="muted">Nothing asked yet.</p>}
      <ul className="plain">
        {calls.map((c) => {
          const kept = decisions.get(c.id);
          const decision = kept?.approval ?? (c.result === undefined ? "waiting" : "answered");
          return (
            <li key={c.id} data-testid="decision" data-decision={decision}>
              <span className={`chip chip-${decision === "waiting" ? "pending" : decision === "denied" ? "failed" : "complete"}`}>{decision}</span>{" "}
              send_email to {kept?.arguments?.to ?? c.args.to ?? "…"}
            </li>
          );
        })}
      </ul>
      <h2 className="panel-subhead">Sent</h2>
      {outbox.length === 0 && <p className="muted">Nothing sent yet.</p>}
      <ul className="plain" data-testid="outbox">
        {outbox.map((e, n) => (
          <li key={`${n}-${e.to}`} data-testid="sent-email" data-to={e.to}>
            {e.to}: {e.subject}
          </li>
        ))}
      </ul>
    </section>
  );
}

export const interrupt: DemoFeature = {
  slug: "interrupt",
  agentId: "approvals",
  title: "Interrupt (useInterrupt)",
  summary:
    "CopilotKit's useInterrupt hook answers AG-UI 1.0 interrupts: send_email waits for your approval, and you can edit the email before it goes. The question survives a reload.",
  prompts: ["Email the team a status update", "Send two emails", "Schedule a meeting about the launch"],
  Tools,
  Panel,
};
