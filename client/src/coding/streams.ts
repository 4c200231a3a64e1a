/**
 * The coding agent's side channels as the app folds them: terminal output (CUSTOM "terminal")
 * grouped per tool call, and the files its write and edit calls touched (CUSTOM "artifact").
 * Pure: the provider (CodingEvents.tsx) feeds it the agent's events, the cards read it.
 *
 * The fold is derived from the event stream alone, so a reload rebuilds it from the connect
 * replay. A replay of the active run starts again from its RUN_STARTED: the output already
 * folded for that run is dropped there, so a re-attach never shows a line twice.
 */

export type TerminalStream = "stdout" | "stderr";

export interface TerminalChunk {
  stream: TerminalStream;
  data: string;
}

/** What one bash/run call has printed so far, and the run it printed in. */
export interface TerminalLog {
  runId: string | null;
  chunks: TerminalChunk[];
}

/** The CUSTOM "artifact" value (protocol/events.ts ArtifactWrittenSchema, without runId). */
export interface Artifact {
  toolCallId: string;
  path: string;
  action: "created" | "updated" | "edited";
  fileType: string;
  size: number;
  diff?: string;
  diffTruncated?: boolean;
}

export interface CodingFold {
  /** The run whose events arrive now (the last RUN_STARTED). */
  runId: string | null;
  terminals: Readonly<Record<string, TerminalLog>>;
  /** Per tool call: the file it wrote. */
  artifacts: Readonly<Record<string, Artifact>>;
  /** Bumped by every artifact: the workspace listing is stale. */
  artifactCount: number;
}

export const EMPTY_FOLD: CodingFold = { runId: null, terminals: {}, artifacts: {}, artifactCount: 0 };

export type CodingEvent =
  | { kind: "runStarted"; runId: string }
  | { kind: "custom"; name: string; value: unknown };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function terminalChunk(value: unknown): { toolCallId: string; chunk: TerminalChunk } | null {
  if (!isRecord(value) || typeof value.toolCallId !== "string" || typeof value.data !== "string") return null;
  const stream: TerminalStream = value.stream === "stderr" ? "stderr" : "stdout";
  return { toolCallId: value.toolCallId, chunk: { stream, data: value.data } };
}

function artifactOf(value: unknown): Artifact | null {
  if (!isRecord(value) || typeof value.toolCallId !== "string" || typeof value.path !== "string") return null;
  const action = value.action === "created" || value.action === "updated" || value.action === "edited" ? value.action : "updated";
  return {
    toolCallId: value.toolCallId,
    path: value.path,
    action,
    fileType: typeof value.fileType === "string" ? value.fileType : "",
    size: typeof value.size === "number" ? value.size : 0,
    ...(typeof value.diff === "string" && { diff: value.diff }),
    ...(value.diffTruncated === true && { diffTruncated: true }),
  };
}

export function foldCoding(fold: CodingFold, e: CodingEvent): CodingFold {
  if (e.kind === "runStarted") {
    // A replay of this run from its start is coming: forget what it printed so far.
    const kept = Object.entries(fold.terminals).filter(([, log]) => log.runId !== e.runId);
    const terminals = kept.length === Object.keys(fold.terminals).length ? fold.terminals : Object.fromEntries(kept);
    return { ...fold, runId: e.runId, terminals };
  }
  if (e.name === "terminal") {
    const t = terminalChunk(e.value);
    if (!t || t.chunk.data === "") return fold;
    const log = fold.terminals[t.toolCallId];
    const next: TerminalLog = { runId: log?.runId ?? fold.runId, chunks: [...(log?.chunks ?? []), t.chunk] };
    return { ...fold, terminals: { ...fold.terminals, [t.toolCallId]: next } };
  }
  if (e.name === "artifact") {
    const a = artifactOf(e.value);
    if (!a) return fold;
    return { ...fold, artifacts: { ...fold.artifacts, [a.toolCallId]: a }, artifactCount: fold.artifactCount + 1 };
  }
  return fold;
}

/**
 * Consecutive chunks of the same stream joined: the unit the ANSI parser reads, so a colour set
 * in one chunk carries on into the next one of its stream.
 */
export function segments(chunks: readonly TerminalChunk[]): TerminalChunk[] {
  const out: TerminalChunk[] = [];
  for (const c of chunks) {
    const last = out.at(-1);
    if (last && last.stream === c.stream) out[out.length - 1] = { stream: c.stream, data: last.data + c.data };
    else out.push({ ...c });
  }
  return out;
}

/** The bash/run result as the contract shapes it: JSON text with at least exitCode and output. */
export interface ExecResult {
  exitCode: number | null;
  output: string;
  truncated: boolean;
  timedOut: boolean;
}

/** null when the result is not the contract's JSON (an error text from the engine, say). */
export function parseExecResult(result: string | undefined): ExecResult | null {
  if (result === undefined) return null;
  let v: unknown;
  try {
    v = JSON.parse(result);
  } catch {
    return null;
  }
  if (!isRecord(v) || !("exitCode" in v || "output" in v)) return null;
  return {
    exitCode: typeof v.exitCode === "number" ? v.exitCode : null,
    output: typeof v.output === "string" ? v.output : "",
    truncated: v.truncated === true,
    timedOut: v.timedOut === true,
  };
}

/** A read result's text: the JSON's `content` when it is an object carrying one, else the text itself. */
export function readContent(result: string | undefined): string | undefined {
  if (result === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(result);
    if (isRecord(v) && typeof v.content === "string") return v.content;
    if (typeof v === "string") return v;
  } catch {
    // plain text
  }
  return result;
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
