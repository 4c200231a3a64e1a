/**
 * The `coding` agent: a coding assistant with the workspace tools (read, write, edit, bash,
 * grep, find, ls, run) working in its thread's workspace, so its files outlive any one run.
 *
 * Its system prompt is CODING_SYSTEM_PROMPT, or the agent's `instructions` option; a run may
 * replace it with `forwardedProps.threadline.systemPrompt` (a client's per-run prompt),
 * unless the agent is built with `allowSystemPromptOverride: false`.
 */
import { defineAgent, type AgentDefinition } from "./define.ts";
import { workspaceTools, type WorkspaceHost } from "../workspace/tools.ts";
import type { Model } from "../models/model.ts";

/** Longest system prompt a run may send. */
export const SYSTEM_PROMPT_MAX_CHARS = 32_000;

export const CODING_SYSTEM_PROMPT = `You are a helpful coding assistant. You work in a workspace directory with these tools:
- read(path, offset?, limit?): read a file (up to 2000 lines at a time).
- write(path, content): create or overwrite a file.
- edit(path, old_string, new_string, replace_all?): replace text that occurs exactly once (or everywhere with replace_all).
- bash(command, timeout?): run a shell command in the workspace (a sandbox without network access).
- grep(pattern, path?, glob?, type?): search file contents with a regular expression.
- find(pattern, path?): find files by glob pattern.
- ls(path?): list a directory.
- run(language, code): run a short Python or Node.js program.
Paths are relative to the workspace. Look before you change: read a file before you edit it, and copy old_string exactly.
Prefer edit for small changes to existing files and write for new files. After a change, check it (run the tests or the program) when you can.
Keep answers short: say what you did and what the user should know; do not paste whole files back.`;

export interface CodingAgentOptions {
  id?: string;
  /** The system prompt (default CODING_SYSTEM_PROMPT). */
  instructions?: string;
  /** Runs may send forwardedProps.threadline.systemPrompt to replace it (default true). */
  allowSystemPromptOverride?: boolean;
  /** Where workspaces are and how commands run (default: from the environment). */
  host?: WorkspaceHost;
  model?: string | Model;
  maxTurns?: number;
}

/** forwardedProps.threadline.systemPrompt when it is a usable string. */
export function systemPromptOf(forwardedProps: unknown): string | undefined {
  if (!forwardedProps || typeof forwardedProps !== "object") return undefined;
  const tl = (forwardedProps as { threadline?: unknown }).threadline;
  if (!tl || typeof tl !== "object") return undefined;
  const sp = (tl as { systemPrompt?: unknown }).systemPrompt;
  return typeof sp === "string" && sp.trim() !== "" ? sp.slice(0, SYSTEM_PROMPT_MAX_CHARS) : undefined;
}

export function codingAgent(opts: CodingAgentOptions = {}): AgentDefinition {
  const allowOverride = opts.allowSystemPromptOverride ?? true;
  return defineAgent({
    id: opts.id ?? "coding",
    description: "A coding assistant that reads, writes and edits files and runs commands in its thread's workspace (sandboxed).",
    greeting: "I read, write and run code in this thread's own workspace.",
    suggestions: ["Write hello.py, run it, then change the greeting and run it again"],
    instructions: opts.instructions ?? CODING_SYSTEM_PROMPT,
    ...(allowOverride && { instructionsFor: (run) => systemPromptOf(run.forwardedProps) }),
    model: opts.model,
    tools: workspaceTools({ host: opts.host }),
    maxTurns: opts.maxTurns ?? 25,
  });
}
