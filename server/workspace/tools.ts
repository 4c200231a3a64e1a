/**
 * The workspace tools, named and shaped as coding agents' tools commonly are (read, write, edit,
 * bash, grep, find, ls, plus run for a short Python or Node snippet), as a toolkit any agent can
 * include:
 *
 *   defineAgent({ id: "mine", instructions, tools: [...workspaceTools(), myOtherTool] })
 *
 * Each call works in the thread's workspace (workspaces.ts); paths are resolved inside it
 * (paths.ts) and a refused path is the call's error result, which the model reads. Commands run
 * in the sandbox (sandbox.ts) and stream their output live (terminal.ts). `write` and `edit`
 * record an `artifact.written` event and are idempotent when the engine runs them again after
 * a crash (nothing is written when the file already holds the result).
 */
import type { ToolDefinition } from "../agents/define.ts";
import { bashTool, runTool } from "./command-tools.ts";
import { editTool, readTool, writeTool } from "./file-tools.ts";
import { defaultWorkspaceHost, type WorkspaceHost } from "./host.ts";
import { findTool, grepTool, lsTool } from "./search-tools.ts";
import { markWorkspaceTool } from "./workspace-tool-mark.ts";

export { defaultWorkspaceHost, workspaceHostFromConfig, type WorkspaceHost } from "./host.ts";
export * from "./limits.ts";
export { WorkspaceToolError } from "./tool-support.ts";

export interface WorkspaceToolsOptions {
  /** Defaults to the process environment's (defaultWorkspaceHost). */
  host?: WorkspaceHost;
}

export function workspaceTools(opts: WorkspaceToolsOptions = {}): ToolDefinition[] {
  const host = () => opts.host ?? defaultWorkspaceHost();
  return [readTool(host), writeTool(host), editTool(host), bashTool(host), grepTool(host), findTool(host), lsTool(host), runTool(host)].map(markWorkspaceTool);
}
