/**
 * An application's own CopilotKit runtime (v2) on threadline.agentRunner(), as an app builds it:
 * `new CopilotRuntime({ agents, runner })`, its agents AG-UI HttpAgents aimed at a remote AG-UI
 * server (test/support/remote-agui.ts), served by the runtime's own node handler.
 */
import "../../server/copilotkit/telemetry.ts"; // first: telemetry off before the runtime loads
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { HttpAgent as HttpAgent100 } from "@ag-ui/client";
import { HttpAgent as HttpAgent0059 } from "@ag-ui/client-0059";
import { CopilotRuntime, createCopilotRuntimeHandler } from "@copilotkit/runtime/v2";
import { createCopilotNodeHandler } from "@copilotkit/runtime/v2/node";
import type { ThreadlineRunner } from "../../server/copilotkit/app-runner-types.ts";
import type { ClientVersion } from "./agui-clients.ts";
import type { Door } from "./copilotkit-clients.ts";

export const RUNNER_BASE = "/app/copilotkit";

/** The runtime's request listener: agent `id` of `agentIds` is an HttpAgent (of @ag-ui/client `version`) at `agentUrl`. */
export function runnerRuntimeListener(runner: ThreadlineRunner, agentUrl: string, agentIds: readonly string[] = ["remote"], version: ClientVersion = "1.0.0"): RequestListener {
  const agents = Object.fromEntries(
    agentIds.map((id) => [id, (version === "0.0.59" ? new HttpAgent0059({ url: agentUrl }) : new HttpAgent100({ url: agentUrl })) as never]),
  );
  const runtime = new CopilotRuntime({ agents, runner: runner as never });
  const handler = createCopilotRuntimeHandler({ runtime, basePath: RUNNER_BASE, activateChannels: false });
  // As docs/durable-threads.md says: the request in scope, so stop and isRunning are scoped by a tenant function.
  return createCopilotNodeHandler((request) => runner.withRequest(request, () => handler(request)));
}

export interface RunnerRuntime extends Door {
  close(): Promise<void>;
}

export async function startRunnerRuntime(runner: ThreadlineRunner, agentUrl: string, version: ClientVersion = "1.0.0"): Promise<RunnerRuntime> {
  const server: Server = createServer(runnerRuntimeListener(runner, agentUrl, ["remote"], version));
  await new Promise<void>((resolve, reject) => server.listen(0, "127.0.0.1", resolve).once("error", reject));
  return {
    label: `app runtime on agentRunner() (HttpAgent ${version})`,
    runtimeUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}${RUNNER_BASE}`,
    transport: "rest",
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
