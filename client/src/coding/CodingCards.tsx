/**
 * The coding agent's tool cards: a terminal for bash and run (live output with its colours, then
 * the exit code), a file card for read and write, a diff for edit. Output comes from the CUSTOM
 * "terminal" events (CodingEvents.tsx); once a run is over and its stream is no longer replayed
 * (a reload), the same output as the log kept it (colours, streams), and once that is compacted
 * the result's own `output`. An edit draws the artifact's real diff, live or from the log.
 */
import { useRenderTool } from "@copilotkit/react-core/v2";
import { useEffect, useRef } from "react";
import { z } from "zod";
import { Card, useCardStatus } from "../components/ToolCards.tsx";
import { TerminalText } from "./Ansi.tsx";
import { useCodingEvents } from "./CodingEvents.tsx";
import { countChanges, rowsFromEdit, rowsFromUnified, type DiffRow } from "./diff-rows.ts";
import { formatSize, parseExecResult, readContent, type TerminalChunk } from "./streams.ts";

type RenderStatus = "inProgress" | "executing" | "complete";

interface RenderProps<A> {
  name: string;
  toolCallId: string;
  status: RenderStatus;
  args: Partial<A>;
  result: string | undefined;
}

const PREVIEW_LINES = 40;

const ExecParams = z.object({ command: z.string(), timeout: z.number().optional() });
const RunParams = z.object({ language: z.string(), code: z.string() });
const ReadParams = z.object({ path: z.string(), offset: z.number().optional(), limit: z.number().optional() });
const WriteParams = z.object({ path: z.string(), content: z.string() });
const EditParams = z.object({ path: z.string(), old_string: z.string(), new_string: z.string(), replace_all: z.boolean().optional() });

// One card draws two tools (bash and run; read and write): its args are either tool's.
type ExecArgs = z.infer<typeof ExecParams> & z.infer<typeof RunParams>;
type FileArgs = z.infer<typeof ReadParams> & z.infer<typeof WriteParams>;
type EditArgs = z.infer<typeof EditParams>;

/**
 * The terminal, code and diff views scroll (wide lines, long output): each is in the Tab order
 * with a name, so a keyboard can reach and scroll it and a screen reader says what it is (axe's
 * scrollable-region-focusable, seen three times on /demos/coding). Rejected: no max height,
 * which let one long output push the conversation off the screen.
 */
function Terminal({ chunks, live, label }: { chunks: readonly TerminalChunk[]; live: boolean; label: string }) {
  const ref = useRef<HTMLPreElement>(null);
  // Follow the output while it grows, as a terminal does.
  useEffect(() => {
    const el = ref.current;
    if (el && live) el.scrollTop = el.scrollHeight;
  }, [chunks, live]);
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex lint/a11y/useSemanticElements: a scrolling region is reached by Tab to scroll it by keyboard (WCAG 2.1.1); a <pre>, for the terminal's spacing.
    <pre ref={ref} className="terminal" data-testid="terminal" data-live={live} tabIndex={0} role="region" aria-label={label}>
      {chunks.length > 0 ? <TerminalText chunks={chunks} /> : <span className="terminal-empty">{live ? "waiting for output…" : "(no output)"}</span>}
      {live && <span className="terminal-cursor" aria-hidden />}
    </pre>
  );
}

function ExitChip({ exitCode, timedOut }: { exitCode: number | null; timedOut: boolean }) {
  if (timedOut) return <span className="chip chip-failed" data-testid="exit-code" data-exit="timeout">timed out</span>;
  if (exitCode === null) return null;
  return (
    <span className={`chip ${exitCode === 0 ? "chip-complete" : "chip-failed"}`} data-testid="exit-code" data-exit={exitCode}>
      exit {exitCode}
    </span>
  );
}

function TerminalCard({ name, toolCallId, status, args, result }: RenderProps<ExecArgs>) {
  const shown = useCardStatus(toolCallId, status);
  const { terminals, logged } = useCodingEvents();
  const exec = parseExecResult(result);
  const streamed = terminals[toolCallId]?.chunks ?? [];
  const fromLog = logged.terminals[toolCallId]?.chunks ?? [];
  // The stream when there is one (live, or replayed with the active run), else the log's, else the result's output.
  const chunks: TerminalChunk[] = streamed.length > 0 ? streamed : fromLog.length > 0 ? fromLog : exec?.output ? [{ stream: "stdout", data: exec.output }] : [];
  const isRun = name === "run";
  const title = isRun ? (
    <>
      <span className="tool-icon">▶</span> run <span className="muted">{args.language ?? "…"}</span>
    </>
  ) : (
    <>
      <span className="tool-icon">&gt;_</span> <code className="command" data-testid="command">{args.command ?? "…"}</code>
    </>
  );
  return (
    <Card
      name={name}
      toolCallId={toolCallId}
      status={shown}
      className="terminal-card"
      title={title}
      badge={exec && <ExitChip exitCode={exec.exitCode} timedOut={exec.timedOut} />}
    >
      {isRun && args.code !== undefined && (
        <details className="tool-io">
          <summary>Code</summary>
          <pre className="code-block">{args.code}</pre>
        </details>
      )}
      <Terminal chunks={chunks} live={shown === "Running"} label={isRun ? `Output of the ${args.language ?? ""} code` : `Output of ${args.command ?? "the command"}`} />
      {exec?.truncated && <p className="muted small">Output truncated: the result keeps its end.</p>}
      {result !== undefined && !exec && <pre className="tool-error" data-testid="tool-result">{result}</pre>}
    </Card>
  );
}

function NumberedLines({ text, testId, label }: { text: string; testId: string; label: string }) {
  const lines = text.replace(/\n$/, "").split("\n");
  const shown = lines.slice(0, PREVIEW_LINES);
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region is reached by Tab to scroll it by keyboard (WCAG 2.1.1).
    <section className="code-view" data-testid={testId} tabIndex={0} aria-label={label}>
      <table className="code-lines">
        <tbody>
          {shown.map((line, i) => (
            <tr key={i}>
              <td className="ln">{i + 1}</td>
              <td className="code">{line || " "}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {lines.length > shown.length && <p className="muted small">… {lines.length - shown.length} more lines (open the file in the workspace)</p>}
    </section>
  );
}

function FileCard({ name, toolCallId, status, args, result }: RenderProps<FileArgs>) {
  const shown = useCardStatus(toolCallId, status);
  const { artifacts, logged } = useCodingEvents();
  const artifact = artifacts[toolCallId] ?? logged.artifacts[toolCallId];
  const isWrite = name === "write";
  const text = isWrite ? args.content : readContent(result);
  const size = artifact?.size ?? (isWrite && args.content !== undefined ? new TextEncoder().encode(args.content).length : undefined);
  const range = !isWrite && (args.offset !== undefined || args.limit !== undefined) ? ` lines ${args.offset ?? 1}+${args.limit ?? ""}` : "";
  const failed = shown === "Failed" || (isWrite && result !== undefined && /^(error|failed)/i.test(result.trim()));
  return (
    <Card
      name={name}
      toolCallId={toolCallId}
      status={shown}
      className="file-card"
      title={
        <>
          <span className="tool-icon">{isWrite ? "W" : "R"}</span> {name} <code className="file-path" data-testid="file-path">{args.path ?? "…"}</code>
          <span className="muted">{range}</span>
        </>
      }
      badge={
        <>
          {artifact && <span className={`chip chip-${artifact.action}`} data-testid="artifact-action">{artifact.action}</span>}
          {size !== undefined && <span className="chip">{formatSize(size)}</span>}
        </>
      }
    >
      {text !== undefined && !failed ? (
        <NumberedLines text={text} testId={isWrite ? "file-content" : "read-content"} label={`${isWrite ? "Written to" : "Read from"} ${args.path ?? "the file"}`} />
      ) : result !== undefined && failed ? (
        <pre className="tool-error" data-testid="tool-result">{result}</pre>
      ) : (
        <p className="muted small">{isWrite ? "Writing…" : "Reading…"}</p>
      )}
    </Card>
  );
}

function DiffView({ rows, label }: { rows: readonly DiffRow[]; label: string }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region is reached by Tab to scroll it by keyboard (WCAG 2.1.1).
    <section className="diff" data-testid="diff" tabIndex={0} aria-label={label}>
      <table className="code-lines">
        <tbody>
          {rows.map((r, i) =>
            r.kind === "hunk" ? (
              <tr key={i} className="diff-hunk">
                <td className="ln" />
                <td className="ln" />
                <td className="code">{r.text}</td>
              </tr>
            ) : (
              <tr key={i} className={`diff-${r.kind}`} data-kind={r.kind}>
                <td className="ln">{r.oldNo ?? ""}</td>
                <td className="ln">{r.newNo ?? ""}</td>
                <td className="code">
                  <span className="diff-mark">{r.kind === "add" ? "+" : r.kind === "del" ? "−" : " "}</span>
                  {r.text || " "}
                </td>
              </tr>
            ),
          )}
        </tbody>
      </table>
    </section>
  );
}

function EditCard({ name, toolCallId, status, args, result }: RenderProps<EditArgs>) {
  const shown = useCardStatus(toolCallId, status);
  const { artifacts, logged } = useCodingEvents();
  const artifact = artifacts[toolCallId] ?? logged.artifacts[toolCallId];
  const fromServer = artifact?.diff ? rowsFromUnified(artifact.diff) : [];
  const rows =
    fromServer.length > 0
      ? fromServer
      : args.old_string !== undefined && args.new_string !== undefined
        ? rowsFromEdit(args.path ?? "file", args.old_string, args.new_string)
        : [];
  const { added, removed } = countChanges(rows);
  const failed = shown === "Failed";
  return (
    <Card
      name={name}
      toolCallId={toolCallId}
      status={shown}
      className="edit-card"
      title={
        <>
          <span className="tool-icon">±</span> edit <code className="file-path" data-testid="file-path">{args.path ?? "…"}</code>
          {args.replace_all && <span className="muted">all</span>}
        </>
      }
      badge={
        rows.length > 0 && (
          <span className="diff-stat" data-testid="diff-stat">
            <span className="diff-added">+{added}</span> <span className="diff-removed">−{removed}</span>
          </span>
        )
      }
    >
      {rows.length > 0 && <DiffView rows={rows} label={`Changes to ${args.path ?? "the file"}`} />}
      {artifact?.diffTruncated && <p className="muted small">The diff is cut; open the file for the rest.</p>}
      {failed && result !== undefined && <pre className="tool-error" data-testid="tool-result">{result}</pre>}
    </Card>
  );
}

type Rendered = { name: string; toolCallId: string; status: RenderStatus; parameters: unknown; result?: string };
const props = <A,>(p: Rendered): RenderProps<A> => ({
  name: p.name,
  toolCallId: p.toolCallId,
  status: p.status,
  args: (p.parameters ?? {}) as Partial<A>,
  result: p.result,
});

/** Registers the coding cards; rendered once inside the provider, on the coding page. */
export function CodingCards(): null {
  useRenderTool({ name: "bash", parameters: ExecParams, render: (p) => <TerminalCard {...props<ExecArgs>(p)} /> }, []);
  useRenderTool({ name: "run", parameters: RunParams, render: (p) => <TerminalCard {...props<ExecArgs>(p)} /> }, []);
  useRenderTool({ name: "read", parameters: ReadParams, render: (p) => <FileCard {...props<FileArgs>(p)} /> }, []);
  useRenderTool({ name: "write", parameters: WriteParams, render: (p) => <FileCard {...props<FileArgs>(p)} /> }, []);
  useRenderTool({ name: "edit", parameters: EditParams, render: (p) => <EditCard {...props<EditArgs>(p)} /> }, []);
  return null;
}
