/**
 * remoteAgent(): an agent that runs somewhere else and speaks AG-UI (a FastAPI server, a
 * LangGraph or Mastra deployment, another Threadline). Its run is one POST of RunAgentInput to
 * `url`; the engine logs the events the remote streams back (engine/foreign/), so the thread is as
 * durable as one of Threadline's own agents: resume by cursor, reload, every tab, cancel, tenants.
 *
 *   const research = remoteAgent({ id: "research", url: "https://agents.internal/research" })
 *
 * What cannot be durable is the remote's own execution: if the instance reading its stream dies,
 * no other instance can pick the stream up where it was (the remote would run the whole request
 * again, with its side effects). So a remote agent's runs are failed by recovery, with RUN_ERROR
 * REMOTE_RUN_LOST, never re-executed (onRecovery "fail").
 */
import { z } from "zod";
import { AgentDefinitionError, defineAgent, type AgentDefinition } from "./define.ts";
import {
  REMOTE_CONNECT_TIMEOUT_MS,
  REMOTE_READ_TIMEOUT_MS,
  REMOTE_TIMEOUT_MAX_MS,
  type RemoteEndpoint,
} from "./remote-endpoint.ts";

export interface RemoteAgentInput {
  id: string;
  /** The remote's AG-UI endpoint (http or https): each run is a POST of RunAgentInput to it. */
  url: string;
  /** Headers sent with every run (credentials of the remote); never logged. */
  headers?: Record<string, string>;
  description?: string;
  /**
   * connectMs: until the remote's response headers (default 30 s); readMs: the longest silence
   * once it streams (default 120 s). Past either, the run ends with RUN_ERROR REMOTE_TIMEOUT.
   */
  timeouts?: { connectMs?: number; readMs?: number };
}

const timeout = z.number().int().min(1).max(REMOTE_TIMEOUT_MAX_MS);
const RemoteOptionsSchema = z.object({
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string(), z.string()).default({}),
  timeouts: z.object({ connectMs: timeout.optional(), readMs: timeout.optional() }).default({}),
});

export function remoteAgent(input: RemoteAgentInput): AgentDefinition {
  const parsed = RemoteOptionsSchema.safeParse({ url: input.url, headers: input.headers, timeouts: input.timeouts });
  if (!parsed.success) {
    const reasons = parsed.error.issues.map((i) => `${i.path.map(String).join(".")}: ${i.message}`).join("; ");
    throw new AgentDefinitionError(`Remote agent "${input.id}": ${reasons}.`);
  }
  const { url, headers, timeouts } = parsed.data;
  const remote: RemoteEndpoint = {
    url,
    headers,
    timeouts: { connectMs: timeouts.connectMs ?? REMOTE_CONNECT_TIMEOUT_MS, readMs: timeouts.readMs ?? REMOTE_READ_TIMEOUT_MS },
  };
  // The remote has its own instructions, model and tools: the engine's are unused (stateInContext
  // false says so to anyone reading the definition). maxTurns 1: one POST per run.
  const base = defineAgent({ id: input.id, description: input.description ?? "", instructions: "", maxTurns: 1, onRecovery: "fail", stateInContext: false });
  return { ...base, remote };
}
