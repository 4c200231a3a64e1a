/**
 * A subagent call's card: the child's name, what became of it (working, waiting, done, failed,
 * cancelled), the task its parent gave it, and its own messages nested inside (its answer as it
 * streams, a line for each tool it called). The child's messages come from CopilotKit's messages
 * (live, as they stream), picked by the thread's attribution (subagents.ts); the chat never
 * shows them as turns of their own (Chat.tsx).
 */
import type { Message } from "@copilotkit/react-core/v2";
import { useThreadChrome } from "../chrome-context.ts";
import { childRunIdOf, childRunOfTask, type SubagentStatus, subagentStatus } from "../subagent-runs.ts";
import { useSubagents } from "../subagents.ts";
import { useThreadAgent } from "../thread-agent.ts";
import { MarkdownRenderer } from "./Markdown.tsx";
import { toolLabel } from "./tool-labels.ts";
import { useCardStatus } from "./ToolCards.tsx";

const TONE: Record<SubagentStatus, string> = { working: "running", waiting: "you", done: "complete", failed: "failed", cancelled: "cancelled" };

interface Props {
  name: string;
  toolCallId: string;
  status: "inProgress" | "executing" | "complete";
  args: unknown;
}

export function SubagentCard({ name, toolCallId, status, args }: Props) {
  const agent = useThreadAgent();
  const subagents = useSubagents();
  const { detail } = useThreadChrome();
  const childRunId = childRunIdOf(toolCallId);
  const run = subagents.run(childRunId);
  const shown = subagentStatus(run, useCardStatus(toolCallId, status));
  const label = toolLabel(run?.name ?? name);
  const mine = (agent.messages as Message[]).filter((m) => subagents.childRunOf(m.id) === childRunId);
  const taskMessage = mine.find((m) => childRunOfTask(m.id) === childRunId);
  const task = (args as { task?: unknown } | undefined)?.task ?? taskMessage?.content;
  const work = mine.filter((m) => m !== taskMessage && m.role === "assistant");
  return (
    <article className="tool-card subagent-card" data-testid="subagent-card" data-tool={name} data-tool-call-id={toolCallId} data-status={shown} aria-label={`${label} (subagent): ${shown}`}>
      <div className="tool-card-head">
        <span className="tool-card-title">
          <span className="tool-icon" aria-hidden="true">
            {label[0]}
          </span>
          <span data-testid="subagent-name">{label}</span>
          <span className="muted small">subagent</span>
        </span>
        <span className={`chip chip-${TONE[shown]}`} data-testid="subagent-status">
          {shown === "working" && <span className="dot-spin" aria-hidden />}
          {shown}
        </span>
      </div>
      {typeof task === "string" && task !== "" && (
        <p className="subagent-task" data-testid="subagent-task">
          <span className="muted">Task: </span>
          {task}
        </p>
      )}
      <div className="subagent-work" data-testid="subagent-work">
        {work.map((m) => (
          <div key={m.id} className="subagent-message" data-testid="subagent-message" data-message-id={m.id}>
            {typeof m.content === "string" && m.content !== "" && <MarkdownRenderer content={m.content} />}
            {"toolCalls" in m &&
              (m.toolCalls ?? []).map((c) => (
                <p key={c.id} className="subagent-tool muted small" data-testid="subagent-tool">
                  {toolLabel(c.function.name)}: {detail?.toolCalls[c.id]?.status ?? "running"}
                </p>
              ))}
          </div>
        ))}
        {work.length === 0 && shown === "working" && <p className="muted small">Working on it…</p>}
      </div>
    </article>
  );
}
