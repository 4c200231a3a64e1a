/**
 * The tools the browser brings to the agent: `change_background` (runs here, no questions) and
 * `confirm_action` (human in the loop: Approve or Deny in the chat). Both survive a reload: the
 * background is re-derived from the conversation, and CopilotKit re-arms an unanswered approval
 * when it replays the thread.
 */
import { useFrontendTool, useHumanInTheLoop } from "@copilotkit/react-core/v2";
import { z } from "zod";
import { useThreadChrome } from "../chrome-context.ts";
import { cardStatus } from "../status.ts";
import { useClosedQuestion } from "./closed-question.ts";
import { parseJson, StatusChip } from "./ToolCards.tsx";

const BackgroundArgs = z.object({ background: z.string().describe("Any CSS background value, e.g. a colour or a gradient") });
const ConfirmArgs = z.object({ action: z.string().describe("What needs the user's approval, in a few words") });

interface Message {
  role: string;
  toolCallId?: string;
  toolCalls?: { id: string; function: { name: string; arguments: string } }[];
}

/** The background the conversation last set: the newest change_background call that has a result. */
export function backgroundFrom(messages: readonly Message[]): string | undefined {
  const answered = new Set(messages.filter((m) => m.role === "tool").map((m) => m.toolCallId));
  let background: string | undefined;
  for (const m of messages) {
    for (const call of m.toolCalls ?? []) {
      if (call.function.name !== "change_background" || !answered.has(call.id)) continue;
      const args = parseJson(call.function.arguments) as { background?: unknown } | undefined;
      if (typeof args?.background === "string") background = args.background;
    }
  }
  return background;
}

function BackgroundCard({ toolCallId, status, background }: { toolCallId: string; status: "inProgress" | "executing" | "complete"; background?: string }) {
  const { detail, status: thread } = useThreadChrome();
  const shown = cardStatus(status, detail?.toolCalls[toolCallId], thread);
  return (
    <div className="tool-card" data-testid="tool-card" data-tool="change_background" data-tool-call-id={toolCallId} data-status={shown}>
      <div className="tool-card-head">
        <span className="tool-card-title">
          <span className="tool-icon">bg</span> Background <span className="swatch" style={{ background }} /> <code>{background ?? "…"}</code>
        </span>
        <StatusChip status={shown} />
      </div>
    </div>
  );
}

type ApprovalProps = {
  toolCallId: string;
  args: { action?: string };
  status: "inProgress" | "executing" | "complete";
  result?: unknown;
  respond?: (result: unknown) => Promise<void>;
};

function ApprovalCard({ toolCallId, args, status, result, respond }: ApprovalProps) {
  const decided = parseJson(typeof result === "string" ? result : JSON.stringify(result ?? null)) as { approved?: boolean } | null;
  const closed = useClosedQuestion(toolCallId);
  const state = status === "complete" ? (decided?.approved ? "approved" : "denied") : closed ? "closed" : respond ? "asking" : "preparing";
  return (
    <div className="tool-card approval" data-testid="approval-card" data-tool-call-id={toolCallId} data-state={state}>
      <div className="tool-card-head">
        <span className="tool-card-title"><span className="tool-icon">?</span> Approval needed</span>
        {state === "asking" && <span className="chip chip-you">Awaiting approval</span>}
        {state === "approved" && <span className="chip chip-complete">Approved</span>}
        {state === "denied" && <span className="chip chip-failed">Denied</span>}
        {state === "closed" && <span className="chip chip-cancelled">Closed</span>}
      </div>
      <p className="approval-action">{args.action ?? "…"}</p>
      {state === "closed" && <p className="muted small" data-testid="closed-reason">Not answered: {closed}.</p>}
      {state === "asking" && respond && (
        <div className="approval-buttons">
          <button type="button" className="btn btn-primary" data-testid="approve-button" onClick={() => void respond({ approved: true })}>
            Approve
          </button>
          <button type="button" className="btn" data-testid="deny-button" onClick={() => void respond({ approved: false })}>
            Deny
          </button>
        </div>
      )}
    </div>
  );
}

/** change_background: the page reads the background back from the conversation (backgroundFrom). */
export function useChangeBackgroundTool(): void {
  useFrontendTool(
    {
      name: "change_background",
      description: "Change the background of the user's page. Use it when the user asks for another background or colour.",
      parameters: BackgroundArgs,
      // The page reads the background back from the conversation (backgroundFrom), so the
      // handler only acknowledges; that also makes a reload show the same background.
      handler: async ({ background }) => ({ ok: true, background }),
      render: (p) => <BackgroundCard toolCallId={p.toolCallId} status={p.status} background={(p.args as { background?: string }).background} />,
    },
    [],
  );
}

/**
 * confirm_action, human in the loop: the call ends the run, the card asks, and the answer
 * `{ approved }` is the tool's result that starts the next run.
 */
export function useConfirmActionTool(): void {
  useHumanInTheLoop(
    {
      name: "confirm_action",
      description: "Ask the user to approve an action before doing it. Answers { approved: boolean }.",
      parameters: ConfirmArgs,
      render: (p) => <ApprovalCard toolCallId={p.toolCallId} args={p.args} status={p.status} result={p.result} respond={p.respond} />,
    },
    [],
  );
}

/** The Threadline agent's page brings both tools; rendered once inside the CopilotKit provider. */
export function DefaultFrontendTools(): null {
  useChangeBackgroundTool();
  useConfirmActionTool();
  return null;
}
