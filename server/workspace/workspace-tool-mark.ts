/**
 * Which tools work in a thread's workspace: workspaceTools() marks each of its definitions, so
 * that a server whose agents have none of them neither creates the workspace root nor probes the
 * sandbox at start (an app without coding tools made `data/workspaces` and logged a notice about
 * shared storage it does not use). A symbol, not a field of ToolDefinition: no application's tool
 * can claim it by accident, and the definition's type stays what users write.
 */
import type { AgentDefinition, ToolDefinition } from "../agents/define.ts";

const WORKSPACE_TOOL: unique symbol = Symbol("threadline.workspaceTool");

export function markWorkspaceTool<T extends ToolDefinition>(tool: T): T {
  return Object.assign(tool, { [WORKSPACE_TOOL]: true });
}

/** Whether any of these agents has a tool of workspaceTools(). */
export function usesWorkspace(agents: readonly AgentDefinition[]): boolean {
  return agents.some((a) => a.tools.some((t) => WORKSPACE_TOOL in t));
}
