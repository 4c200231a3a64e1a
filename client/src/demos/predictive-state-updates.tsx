/**
 * Predictive state updates, with the dojo's names: the agent proposes a document with
 * write_document_local, whose streaming argument state.document follows (predictState), and then
 * asks with this page's confirm_changes (useHumanInTheLoop). Confirm keeps the proposal; Reject
 * puts the last confirmed document back into the state before answering, so the state the
 * answer's run carries, and the thread keeps, is the user's choice.
 */
import { useAgentContext, useHumanInTheLoop, useRenderTool } from "@copilotkit/react-core/v2";
import { z } from "zod";
import { parseJson } from "../components/ToolCards.tsx";
import { useThreadAgent } from "../thread-agent.ts";
import type { DemoFeature } from "./feature.ts";

const WRITE_TOOL = "write_document_local";
const CONFIRM_TOOL = "confirm_changes";

function useDocument(): string {
  const agent = useThreadAgent();
  const doc = (agent.state as { document?: unknown } | undefined)?.document;
  return typeof doc === "string" ? doc : "";
}

interface Message {
  role: string;
  content?: unknown;
  toolCallId?: string;
  toolCalls?: { id: string; function: { name: string; arguments: string } }[];
}

/**
 * The document the user last confirmed, read from the conversation (so a reload knows it too):
 * each confirm_changes answered `{accepted: true}` confirms the write_document_local before it.
 */
export function confirmedDocument(messages: readonly Message[]): string {
  const results = new Map(messages.filter((m) => m.role === "tool" && m.toolCallId).map((m) => [m.toolCallId!, m.content]));
  let proposed = "";
  let confirmed = "";
  for (const m of messages) {
    for (const call of m.toolCalls ?? []) {
      if (call.function.name === WRITE_TOOL) {
        const args = parseJson(call.function.arguments) as { document?: unknown } | undefined;
        if (typeof args?.document === "string") proposed = args.document;
      } else if (call.function.name === CONFIRM_TOOL) {
        const result = results.get(call.id);
        const answer = (typeof result === "string" ? parseJson(result) : result) as { accepted?: unknown } | undefined;
        if (answer?.accepted === true) confirmed = proposed;
      }
    }
  }
  return confirmed;
}

type ConfirmProps = {
  toolCallId: string;
  status: "inProgress" | "executing" | "complete";
  result?: unknown;
  respond?: (result: unknown) => Promise<void>;
};

function ConfirmChangesCard({ toolCallId, status, result, respond }: ConfirmProps) {
  const agent = useThreadAgent();
  const answer = parseJson(typeof result === "string" ? result : JSON.stringify(result ?? null)) as { accepted?: boolean } | null;
  const state = status === "complete" ? (answer?.accepted ? "accepted" : "rejected") : respond ? "asking" : "preparing";
  const reject = () => {
    const before = confirmedDocument(agent.messages as Message[]);
    agent.setState({ ...((agent.state ?? {}) as Record<string, unknown>), document: before });
    void respond?.({ accepted: false });
  };
  return (
    <div className="tool-card approval" data-testid="confirm-changes-modal" data-tool-call-id={toolCallId} data-state={state}>
      <div className="tool-card-head">
        <span className="tool-card-title"><span className="tool-icon">?</span> Confirm changes</span>
        {state === "accepted" && <span className="chip chip-complete" data-testid="status-display">✓ Accepted</span>}
        {state === "rejected" && <span className="chip chip-failed" data-testid="status-display">✗ Rejected</span>}
      </div>
      <p className="approval-action">Do you want to keep the agent's changes to the document?</p>
      {state === "asking" && respond && (
        <div className="approval-buttons">
          <button type="button" className="btn btn-primary" data-testid="confirm-button" onClick={() => void respond({ accepted: true })}>
            Confirm
          </button>
          <button type="button" className="btn" data-testid="reject-button" onClick={reject}>
            Reject
          </button>
        </div>
      )}
    </div>
  );
}

/** Enough Markdown for the agent's documents: headings, bullets, paragraphs. */
function Markdown({ text }: { text: string }) {
  return (
    <>
      {text.split("\n").map((line, i) => {
        if (line.startsWith("## ")) return <h4 key={i}>{line.slice(3)}</h4>;
        if (line.startsWith("# ")) return <h3 key={i} className="doc-title">{line.slice(2)}</h3>;
        if (line.startsWith("- ")) return <li key={i}>{line.slice(2)}</li>;
        return line.trim() ? <p key={i}>{line}</p> : null;
      })}
    </>
  );
}

function Tools() {
  const document = useDocument();
  // One line of JSON: the server puts each context entry on one line of the system prompt.
  useAgentContext({ description: "The current document (state.document)", value: { document } });
  useRenderTool(
    {
      name: WRITE_TOOL,
      parameters: z.object({ document: z.string() }),
      render: ({ toolCallId, status, parameters }) => {
        const length = (parameters as { document?: string } | undefined)?.document?.length ?? 0;
        return (
          <div className="tool-card" data-testid="tool-card" data-tool={WRITE_TOOL} data-tool-call-id={toolCallId} data-status={status}>
            <span className="tool-card-title">
              <span className="tool-icon">doc</span> {status === "complete" ? "Change proposed" : "Writing the document…"}
              <span className="muted"> {length} characters</span>
            </span>
          </div>
        );
      },
    },
    [],
  );
  useHumanInTheLoop(
    {
      name: CONFIRM_TOOL,
      description: "Ask the user to confirm or reject the document change just written. Answers { accepted: boolean }.",
      parameters: z.object({}),
      render: (p) => <ConfirmChangesCard toolCallId={p.toolCallId} status={p.status} result={p.result} respond={p.respond} />,
    },
    [],
  );
  return null;
}

function Panel() {
  const document = useDocument();
  return (
    <section className="panel document" data-testid="document" data-length={document.length}>
      <h2>Document (state.document)</h2>
      {document ? <Markdown text={document} /> : <p className="muted">Empty. Ask the agent to write something.</p>}
    </section>
  );
}

export const predictiveStateUpdates: DemoFeature = {
  slug: "predictive-state-updates",
  agentId: "predictive_state_updates",
  title: "Predictive state updates",
  summary: "The agent proposes a document with write_document_local (state.document follows its argument as it streams); you confirm or reject the change (confirm_changes).",
  prompts: ["Write a document about the sea", "Write a short piece about autumn"],
  Tools,
  Panel,
};
