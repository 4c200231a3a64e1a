/**
 * Tool cards in the chat: a weather card for get_weather, and a generic card (a label and a
 * one-line summary, the images the tool returned, a terminal view when the tool streamed output,
 * the raw arguments and result behind a disclosure) for every other tool, and a subagent's card
 * (SubagentCard.tsx) for a call that runs a subagent. A card's status is what the log says became of the call (awaiting approval or
 * an answer, running, complete, failed, cancelled, not run: status.ts cardStatus), the same live
 * and after a reload, and never Running once the thread is settled.
 */
import { useDefaultRenderTool, useRenderTool } from "@copilotkit/react-core/v2";
import type { ReactNode } from "react";
import { z } from "zod";
import { useThreadChrome } from "../chrome-context.ts";
import { CARD_REASON, CARD_TONE, cardStatus, type CardStatus } from "../status.ts";
import { childRunIdOf } from "../subagent-runs.ts";
import { useSubagents } from "../subagents.ts";
import { SubagentCard } from "./SubagentCard.tsx";
import { toolImages } from "./tool-images.ts";
import { toolLabel, toolSummary } from "./tool-labels.ts";
import { ToolImages } from "./ToolImages.tsx";

type RenderStatus = "inProgress" | "executing" | "complete";

interface CardProps {
  name: string;
  toolCallId: string;
  status: RenderStatus;
  args: unknown;
  result: string | undefined;
}

export function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function useCardStatus(toolCallId: string, status: RenderStatus): CardStatus {
  const { detail, status: thread } = useThreadChrome();
  return cardStatus(status, detail?.toolCalls[toolCallId], thread);
}

/** Why the call was cancelled or not run, in words, when the log says (undefined otherwise). */
export function useCardReason(toolCallId: string): string | undefined {
  const reason = useThreadChrome().detail?.toolCalls[toolCallId]?.reason;
  return reason && CARD_REASON[reason];
}

export function StatusChip({ status, reason }: { status: CardStatus; reason?: string }) {
  return (
    <span className={`chip chip-${CARD_TONE[status]}`} data-testid="tool-status" title={reason}>
      {status === "Running" && <span className="dot-spin" aria-hidden />}
      {status === "Updating" ? "…" : status}
    </span>
  );
}

export function Card({ name, toolCallId, status, title, badge, className, children }: { name: string; toolCallId: string; status: CardStatus; title: ReactNode; badge?: ReactNode; className?: string; children: ReactNode }) {
  const reason = useCardReason(toolCallId);
  return (
    <div className={className ? `tool-card ${className}` : "tool-card"} data-testid="tool-card" data-tool={name} data-tool-call-id={toolCallId} data-status={status}>
      <div className="tool-card-head">
        <span className="tool-card-title">{title}</span>
        <span className="tool-card-badges">
          {badge}
          <StatusChip status={status} reason={reason} />
        </span>
      </div>
      {reason && (status === "Cancelled" || status === "Not run") && (
        <p className="muted small" data-testid="tool-reason">
          {status === "Cancelled" ? "Cancelled" : "Not run"}: {reason}.
        </p>
      )}
      {children}
    </div>
  );
}

interface WeatherResult {
  location?: string;
  temperature?: number;
  feelsLike?: number;
  conditions?: string;
  humidity?: number;
  windSpeed?: number;
}

function WeatherCard({ name, toolCallId, status, args, result }: CardProps) {
  const shown = useCardStatus(toolCallId, status);
  const w = (parseJson(result) ?? {}) as WeatherResult;
  const location = w.location ?? (args as { location?: string }).location ?? "…";
  return (
    <Card name={name} toolCallId={toolCallId} status={shown} title={<><span className="tool-icon">W</span> Weather · {location}</>}>
      {typeof w.temperature === "number" ? (
        <div className="weather" data-testid="weather-card">
          <div className="weather-temp">{Math.round(w.temperature)}°C</div>
          <div className="weather-meta">
            <div className="weather-cond">{w.conditions}</div>
            {typeof w.feelsLike === "number" && <div>Feels like {Math.round(w.feelsLike)}°C</div>}
            {typeof w.humidity === "number" && <div>Humidity {w.humidity}%</div>}
            {typeof w.windSpeed === "number" && <div>Wind {w.windSpeed} km/h</div>}
          </div>
        </div>
      ) : (
        <div className="muted" data-testid="weather-card">{shown === "Running" ? "Looking up the weather…" : String(result ?? "No result")}</div>
      )}
    </Card>
  );
}

/**
 * Any other tool: its label and a one-line summary of what it was asked, the output it streamed
 * and the images it returned; the arguments and result as JSON behind "Details", for whoever
 * wants the exact call.
 */
function GenericCard({ name, toolCallId, status, args, result }: CardProps) {
  const shown = useCardStatus(toolCallId, status);
  const { terminal, detail } = useThreadChrome();
  const output = terminal[toolCallId];
  const parsed = parseJson(result);
  const images = toolImages(detail?.messages, toolCallId);
  const label = toolLabel(name);
  const summary = toolSummary(args);
  const title = (
    <>
      <span className="tool-icon" aria-hidden="true">
        {label[0]}
      </span>
      <span className="tool-label" data-testid="tool-label">
        {label}
      </span>
      {summary && (
        <span className="tool-summary" data-testid="tool-summary" title={summary}>
          {summary}
        </span>
      )}
    </>
  );
  return (
    <Card name={name} toolCallId={toolCallId} status={shown} title={title}>
      {output !== undefined && (
        <pre className="terminal" data-testid="terminal">
          {output}
        </pre>
      )}
      <ToolImages sources={images} />
      <details className="tool-io" data-testid="tool-details">
        <summary>Details</summary>
        <p className="tool-io-name">
          Tool <code>{name}</code>
        </p>
        <h4 className="tool-io-head">Arguments</h4>
        <pre data-testid="tool-args">{JSON.stringify(args, null, 2)}</pre>
        {result !== undefined && (
          <>
            <h4 className="tool-io-head">Result</h4>
            <pre data-testid="tool-result">{typeof parsed === "string" ? parsed : JSON.stringify(parsed, null, 2)}</pre>
          </>
        )}
      </details>
    </Card>
  );
}

/** A call the log (or the live stream) shows running a subagent gets the subagent's card. */
function AnyToolCard(props: CardProps) {
  const isSubagent = useSubagents().run(childRunIdOf(props.toolCallId)) !== undefined;
  return isSubagent ? <SubagentCard {...props} /> : <GenericCard {...props} />;
}

const WeatherArgs = z.object({ location: z.string() });

/** Registers the renderers; call once inside the CopilotKit provider. */
export function useToolCards(): void {
  useRenderTool(
    {
      name: "get_weather",
      parameters: WeatherArgs,
      render: (p) => <WeatherCard name={p.name} toolCallId={p.toolCallId} status={p.status} args={p.parameters} result={p.result} />,
    },
    [],
  );
  useDefaultRenderTool(
    {
      render: (p) => <AnyToolCard name={p.name} toolCallId={p.toolCallId} status={p.status} args={p.parameters} result={p.result} />,
    },
    [],
  );
}
