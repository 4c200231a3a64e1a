/**
 * One of our agents as CopilotKit's runtime sees it: an in-process AG-UI agent (`@ag-ui/client`
 * 0.0.59, the version the runtime is built against) whose runs and connects go to the caller's
 * runner, so through the engine and the log, never over HTTP. Rejected: an HttpAgent aimed at
 * our own run endpoint, a loopback call that needed this server's address and carried the
 * caller's credentials around in headers.
 */
import type { BaseEvent, RunAgentInput } from "@ag-ui/client-0059";
import type { AgentCapabilities } from "@ag-ui/core";
import type { Observable } from "rxjs";
import type { ThreadlineAgentRunner } from "./runner.ts";
import { agui } from "./runtime-packages.ts";

export interface ThreadlineAgentOptions {
  agentId: string;
  description: string;
  runner: ThreadlineAgentRunner;
  /** The agent's AG-UI capabilities (agents/capabilities.ts), which the runtime's /info forwards. */
  capabilities: AgentCapabilities;
}

export class ThreadlineAgent extends agui.AbstractAgent {
  /**
   * The runtime merges the caller's forwardable headers in here before a run; the runner reads
   * this server's per-request options from them (x-threadline-double-texting, ...).
   */
  headers: Record<string, string> = {};
  // Not a #private field: AbstractAgent.clone() builds the copy with Object.create, which has
  // no slot for one.
  private runner: ThreadlineAgentRunner;
  private capabilities: AgentCapabilities;

  constructor({ agentId, description, runner, capabilities }: ThreadlineAgentOptions) {
    super({ agentId, description });
    this.runner = runner;
    this.capabilities = capabilities;
  }

  /** What CopilotKit's GET /info lists for this agent (handleGetRuntimeInfo calls it). */
  override async getCapabilities(): Promise<AgentCapabilities> {
    return structuredClone(this.capabilities);
  }

  run(input: RunAgentInput): Observable<BaseEvent> {
    return this.runner.run({ threadId: input.threadId, agent: this, input });
  }

  protected override connect(input: RunAgentInput): Observable<BaseEvent> {
    return this.runner.connect({ threadId: input.threadId, agentId: this.agentId });
  }

  /** AbstractAgent's clone copies only its own fields; the runner and headers come along here. */
  override clone(): ThreadlineAgent {
    const copy = super.clone() as ThreadlineAgent;
    copy.runner = this.runner;
    copy.capabilities = this.capabilities;
    copy.headers = { ...this.headers };
    return copy;
  }
}
