/**
 * CopilotKit's AgentRunner on top of Threadline's HTTP surface, so that the runtime keeps no
 * thread in memory: the Postgres event log behind our endpoints is the only history.
 *
 *   run       -> POST /api/agents/:agentId/run      (the run outlives the runtime's subscription)
 *   connect   -> POST /api/agents/:agentId/connect  (replay + live tail; ends when nothing runs)
 *   isRunning -> GET  /api/threads/:threadId        (an active status: protocol/lifecycle.ts)
 *   stop      -> POST /api/threads/:threadId/cancel (durable, from any instance)
 *
 * Every call carries the caller's forwardable headers (Authorization, x-*), so API keys and
 * tenant headers reach our endpoints as if the browser had called them itself.
 */
import type { BaseEvent } from "@ag-ui/client-0059";
import {
  AgentRunner,
  type AgentRunnerConnectRequest,
  type AgentRunnerIsRunningRequest,
  type AgentRunnerRunRequest,
  type AgentRunnerStopRequest,
} from "@copilotkit/runtime/v2";
import type { Observable } from "rxjs";
import { isActive } from "../../protocol/lifecycle.ts";
import { callerContext } from "./request-context.ts";
import { cancelThread, getThread, postEvents, type Target } from "./threadline-http.ts";

export interface ThreadlineRunnerOptions {
  /** Our server's origin; by default the address the runtime's own request came in on. */
  baseUrl?: string | (() => string | undefined);
}

export class ThreadlineAgentRunner extends AgentRunner {
  readonly #baseUrl: ThreadlineRunnerOptions["baseUrl"];

  constructor(opts: ThreadlineRunnerOptions = {}) {
    super();
    this.#baseUrl = opts.baseUrl;
  }

  /** Where our endpoints answer for the request in progress. */
  origin(): string {
    const configured = typeof this.#baseUrl === "function" ? this.#baseUrl() : this.#baseUrl;
    const origin = configured ?? callerContext.getStore()?.origin;
    if (!origin) {
      throw new Error("ThreadlineAgentRunner has no base URL: pass `baseUrl`, or mount it with copilotkitRouter() so it can use the request's address.");
    }
    return origin.replace(/\/+$/, "");
  }

  #target(headers?: Record<string, string>): Target {
    return { origin: this.origin(), headers: { ...callerContext.getStore()?.headers, ...headers } };
  }

  run({ agent, input }: AgentRunnerRunRequest): Observable<BaseEvent> {
    const agentId = agent.agentId ?? "default";
    const headers = "headers" in agent ? (agent.headers as Record<string, string>) : {};
    return postEvents(this.#target(headers), `/api/agents/${encodeURIComponent(agentId)}/run`, input);
  }

  connect({ threadId, agentId, headers }: AgentRunnerConnectRequest): Observable<BaseEvent> {
    const path = `/api/agents/${encodeURIComponent(agentId ?? "default")}/connect`;
    return postEvents(this.#target(headers), path, { threadId });
  }

  async isRunning({ threadId }: AgentRunnerIsRunningRequest): Promise<boolean> {
    const thread = await getThread(this.#target(), threadId);
    return thread !== null && isActive(thread.status);
  }

  async stop({ threadId, runId }: AgentRunnerStopRequest): Promise<boolean> {
    const target = this.#target();
    if (runId !== undefined) {
      const thread = await getThread(target, threadId);
      if (!thread || thread.activeRunId !== runId) return false;
    }
    return cancelThread(target, threadId);
  }
}
