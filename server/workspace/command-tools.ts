/**
 * The command tools: bash, and run for a short Python or Node program. Both run in the sandbox
 * and stream their output live as terminal events.
 */
import { z } from "zod";
import { defineTool, type ToolDefinition } from "../agents/define.ts";
import type { WorkspaceHost } from "./host.ts";
import { BASH_DEFAULT_TIMEOUT_S, COMMAND_MAX_TIMEOUT_S, RUN_DEFAULT_TIMEOUT_S } from "./limits.ts";
import { runCommand } from "./tool-support.ts";

/** `bash`: a shell command in the sandbox. */
export function bashTool(host: () => WorkspaceHost): ToolDefinition {
  return defineTool({
    name: "bash",
    description: `Run a shell command (bash) in the workspace, in a sandbox: no network, only the workspace is writable. Streams its output. Default timeout ${BASH_DEFAULT_TIMEOUT_S} s, at most ${COMMAND_MAX_TIMEOUT_S}.`,
    inputSchema: z.object({
      command: z.string().min(1),
      timeout: z.number().positive().max(COMMAND_MAX_TIMEOUT_S).optional().describe("seconds"),
    }),
    async execute({ command, timeout = BASH_DEFAULT_TIMEOUT_S }, ctx) {
      return runCommand(host(), ctx, ["/bin/bash", "-c", command], timeout);
    },
  });
}

/** `run`: a short Python or Node program in the sandbox. */
export function runTool(host: () => WorkspaceHost): ToolDefinition {
  return defineTool({
    name: "run",
    description: `Run a short Python or Node.js program in the sandbox (cwd: the workspace, no network). Default timeout ${RUN_DEFAULT_TIMEOUT_S} s.`,
    inputSchema: z.object({
      language: z.enum(["python", "node"]),
      code: z.string().min(1),
      timeout: z.number().positive().max(COMMAND_MAX_TIMEOUT_S).optional().describe("seconds"),
    }),
    async execute({ language, code, timeout = RUN_DEFAULT_TIMEOUT_S }, ctx) {
      const argv = language === "python" ? ["/usr/bin/env", "python3", "-"] : ["/usr/bin/env", "node", "-"];
      return runCommand(host(), ctx, argv, timeout, code);
    },
  });
}
