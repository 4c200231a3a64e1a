/**
 * What the workspace tools share: where the workspaces are and the sandbox commands run in,
 * built from the configuration or passed in (tests give each server its own).
 */
import path from "node:path";
import { loadConfig, type Config } from "../config.ts";
import { Sandbox } from "./sandbox.ts";
import { Workspaces } from "./workspaces.ts";

/** What the tools share: where workspaces are and how commands run. */
export interface WorkspaceHost {
  workspaces: Workspaces;
  sandbox: Sandbox;
}

/** The host the configuration describes (WORKSPACE_ROOT or DATA_DIR/workspaces, the sandbox settings). */
export function workspaceHostFromConfig(config: Config): WorkspaceHost {
  const sandbox = new Sandbox({
    mode: config.UNSAFE_RUN_COMMANDS_WITHOUT_SANDBOX ? "unsafe-host" : "bwrap",
    limits: { memoryMb: config.SANDBOX_MEMORY_MB, maxProcesses: config.SANDBOX_MAX_PROCESSES, maxFileMb: config.SANDBOX_MAX_FILE_MB, cpus: config.SANDBOX_CPUS },
    user: { uid: config.SANDBOX_UID, gid: config.SANDBOX_UID },
    readOnlyPaths: config.SANDBOX_READONLY_PATHS,
  });
  const workspaces = new Workspaces({
    root: config.WORKSPACE_ROOT ?? path.join(config.DATA_DIR, "workspaces"),
    allowWorkingDirectory: config.WORKSPACE_ROOT !== undefined,
    owner: sandbox.user,
  });
  return { workspaces, sandbox };
}

let envHost: WorkspaceHost | undefined;
/** The host of the process environment, built once (workspaceTools() without options). */
export function defaultWorkspaceHost(): WorkspaceHost {
  envHost ??= workspaceHostFromConfig(loadConfig());
  return envHost;
}
