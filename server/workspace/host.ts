/**
 * What the workspace tools share: where the workspaces are and the sandbox commands run in,
 * built from the configuration or passed in (tests give each server its own).
 */
import path from "node:path";
import { loadConfig, type Config } from "../config.ts";
import { isInside } from "./paths.ts";
import { Sandbox } from "./sandbox.ts";
import { Workspaces } from "./workspaces.ts";

/** What the tools share: where workspaces are and how commands run. */
export interface WorkspaceHost {
  workspaces: Workspaces;
  sandbox: Sandbox;
}

/** The host the configuration describes (WORKSPACE_ROOT or DATA_DIR/workspaces, the sandbox settings). */
export function workspaceHostFromConfig(config: Config): WorkspaceHost {
  const sandbox = sandboxFromConfig(config);
  const workspaces = new Workspaces({
    root: workspaceRootOf(config),
    allowWorkingDirectory: config.WORKSPACE_ROOT !== undefined,
    owner: sandbox.user,
  });
  return { workspaces, sandbox };
}

function sandboxFromConfig(config: Config): Sandbox {
  return new Sandbox({
    mode: config.UNSAFE_RUN_COMMANDS_WITHOUT_SANDBOX ? "unsafe-host" : "bwrap",
    limits: { memoryMb: config.SANDBOX_MEMORY_MB, maxProcesses: config.SANDBOX_MAX_PROCESSES, maxFileMb: config.SANDBOX_MAX_FILE_MB, cpus: config.SANDBOX_CPUS },
    user: { uid: config.SANDBOX_UID, gid: config.SANDBOX_UID },
    readOnlyPaths: config.SANDBOX_READONLY_PATHS,
  });
}

/** The workspace root the configuration names: WORKSPACE_ROOT, else `<DATA_DIR>/workspaces`. */
export function workspaceRootOf(config: Config): string {
  return config.WORKSPACE_ROOT ?? path.join(config.DATA_DIR, "workspaces");
}

/**
 * Whether the sandbox's user must pass through `dir` to reach the workspaces: commands run as
 * SANDBOX_UID when the server is root, and bubblewrap opens the workspace it mounts as that user,
 * which needs search permission on every directory above it (measured: "Can't find source path
 * /proc/self/fd/3: Permission denied" under a 0700 parent).
 */
export function sandboxPassesThrough(config: Config, dir: string): boolean {
  return sandboxFromConfig(config).user !== undefined && isInside(path.resolve(dir), path.resolve(workspaceRootOf(config)));
}

let envHost: WorkspaceHost | undefined;
/** The host of the process environment, built once (workspaceTools() without options). */
export function defaultWorkspaceHost(): WorkspaceHost {
  envHost ??= workspaceHostFromConfig(loadConfig());
  return envHost;
}
