/**
 * Predictive state updates: the agent writes state.document with write_document, and the page
 * draws state.document. The chat card follows the tool's arguments as they stream. Once the
 * engine's predictState option is declared on the agent, state.document itself follows the
 * streaming argument; this page needs no change for that.
 */
import { useAgentContext, useRenderTool } from "@copilotkit/react-core/v2";
import { z } from "zod";
import { useThreadAgent } from "../thread-agent.ts";
import type { DemoFeature } from "./feature.ts";

function useDocument(): string {
  const agent = useThreadAgent();
  const doc = (agent.state as { document?: unknown } | undefined)?.document;
  return typeof doc === "string" ? doc : "";
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
      name: "write_document",
      parameters: z.object({ document: z.string() }),
      render: ({ toolCallId, status, parameters }) => {
        const length = (parameters as { document?: string } | undefined)?.document?.length ?? 0;
        return (
          <div className="tool-card" data-testid="tool-card" data-tool="write_document" data-tool-call-id={toolCallId} data-status={status}>
            <span className="tool-card-title">
              <span className="tool-icon">doc</span> {status === "complete" ? "Document written" : "Writing the document…"}
              <span className="muted"> {length} characters</span>
            </span>
          </div>
        );
      },
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
  summary: "The agent writes a document with write_document; the page shows state.document, and the chat follows the tool's arguments as they stream.",
  prompts: ["Write a document about the sea", "Write a short piece about autumn"],
  Tools,
  Panel,
};
