/**
 * A real Threadline server in its own process, for multi-process tests (spawned by
 * server-process.ts): `node --import tsx test/support/child-server.ts`.
 *
 * Configured from the environment like production (server/config.ts: DATABASE_URL,
 * DATABASE_SCHEMA, OPENAI_BASE_URL, LEASE_TTL_MS, ...) plus:
 *   CHILD_AGENTS       comma list of agents to host: `default` (the built-in agent),
 *                      `slowtool` (a test agent with one slow tool, below), `strict` (the same
 *                      with onRecovery "fail": a run whose instance died ends FAILED),
 *                      `coding` (the coding agent, workspaces per WORKSPACE_ROOT/DATA_DIR),
 *                      `approvals` (the built-in approvals agent; every email it sends is a
 *                      `sent` line in CHILD_TOOL_LOG), `remote` (remoteAgent at CHILD_REMOTE_URL),
 *                      `team` (TEAM_AGENT_ID: two subagents, the local `researcher` and the
 *                      remote `critic` at CHILD_REMOTE_URL); default `default`
 *   CHILD_INSTANCE_ID  the engine's instance id (lease owner); default `child-<pid>`
 *   CHILD_TOOL_MS      how long one `slow_job` execution takes; default 100
 *   CHILD_TOOL_LOG     a file where every `slow_job` execution appends a JSON line when it
 *                      starts and when it ends, so a test can count executions across processes
 *                      (appendFileSync: a line written before a SIGKILL is in the file)
 *
 * On stdout it prints exactly one line, `listening <port>`, once it accepts connections; logs
 * go to stderr. SIGTERM/SIGINT close it gracefully (its leases are released for recovery).
 */
import { appendFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { z } from "zod";
import { defineAgent, defineTool, type AgentDefinition } from "../../server/agents/define.ts";
import { approvalsAgent, APPROVALS_AGENT_ID } from "../../server/agents/approvals-agent.ts";
import { codingAgent } from "../../server/agents/coding-agent.ts";
import { defaultAgent } from "../../server/agents/default-agent.ts";
import { remoteAgent } from "../../server/agents/remote-agent.ts";
import { subagent } from "../../server/agents/subagent.ts";
import { abortableWait as wait } from "../../server/agents/abortable-wait.ts";
import { loadConfig } from "../../server/config.ts";
import { createThreadline } from "../../server/threadline.ts";
import { SLOW_TOOL_AGENT_ID, SLOW_TOOL_NAME, STRICT_TOOL_AGENT_ID, TEAM_AGENT_ID, type ToolLogLine } from "./server-process.ts";


function slowToolAgent(
  id: string,
  onRecovery: "resume" | "fail",
  instance: string,
  toolMs: number,
  logFile: string | undefined,
): AgentDefinition {
  const log = (line: Omit<ToolLogLine, "instance" | "pid" | "at">) => {
    if (logFile) appendFileSync(logFile, `${JSON.stringify({ ...line, instance, pid: process.pid, at: Date.now() })}\n`);
  };
  const slowJob = defineTool({
    name: SLOW_TOOL_NAME,
    description: "A job that takes a while; each execution is counted outside the process.",
    inputSchema: z.object({ label: z.string() }),
    async execute({ label }, ctx) {
      log({ phase: "start", toolCallId: ctx.toolCallId, label });
      // In the log before the wait: a test sees the tool running without polling the file.
      await ctx.progress({ label, phase: "running", instance });
      await wait(toolMs, ctx.signal);
      log({ phase: "end", toolCallId: ctx.toolCallId, label });
      return { label, done: true, ranOn: instance };
    },
  });
  return defineAgent({
    id,
    instructions: "Test agent: call slow_job when asked.",
    tools: [slowJob],
    maxTurns: 4,
    onRecovery,
  });
}

const env = process.env;
const config = loadConfig(env);
const leaseOwner = env.CHILD_INSTANCE_ID || `child-${process.pid}`;
const wanted = (env.CHILD_AGENTS || "default").split(",").map((s) => s.trim()).filter(Boolean);
const agents = wanted.map((name) => {
  if (name === "default") return defaultAgent({ planStepDelayMs: 20 });
  if (name === "coding") return codingAgent();
  if (name === APPROVALS_AGENT_ID) {
    return approvalsAgent({
      onSend: (email, at) => {
        const line: ToolLogLine = { phase: "sent", toolCallId: at.toolCallId, label: email.subject, instance: leaseOwner, pid: process.pid, at: Date.now() };
        if (env.CHILD_TOOL_LOG) appendFileSync(env.CHILD_TOOL_LOG, `${JSON.stringify(line)}\n`);
      },
    });
  }
  if (name === "remote") {
    if (!env.CHILD_REMOTE_URL) throw new Error("CHILD_AGENTS remote needs CHILD_REMOTE_URL");
    return remoteAgent({ id: "remote", url: env.CHILD_REMOTE_URL });
  }
  if (name === TEAM_AGENT_ID) {
    if (!env.CHILD_REMOTE_URL) throw new Error(`CHILD_AGENTS ${TEAM_AGENT_ID} needs CHILD_REMOTE_URL`);
    const researcher = defineAgent({ id: "researcher", instructions: "Test subagent: research the task." });
    const critic = remoteAgent({ id: "critic", url: env.CHILD_REMOTE_URL });
    return defineAgent({ id: TEAM_AGENT_ID, instructions: "Test agent: hand tasks to your subagents.", tools: [subagent(researcher), subagent(critic)] });
  }
  const toolMs = Number(env.CHILD_TOOL_MS || 100);
  if (name === SLOW_TOOL_AGENT_ID) return slowToolAgent(name, "resume", leaseOwner, toolMs, env.CHILD_TOOL_LOG);
  if (name === STRICT_TOOL_AGENT_ID) return slowToolAgent(name, "fail", leaseOwner, toolMs, env.CHILD_TOOL_LOG);
  throw new Error(`CHILD_AGENTS: unknown agent "${name}" (known: default, remote, ${TEAM_AGENT_ID}, ${APPROVALS_AGENT_ID}, ${SLOW_TOOL_AGENT_ID}, ${STRICT_TOOL_AGENT_ID})`);
});

const logger = pino({ level: config.LOG_LEVEL, base: { instance: leaseOwner } }, pino.destination(2));
const threadline = await createThreadline({ config, agents, logger, leaseOwner });
const port = env.CHILD_RUNNER_AGENT_URL ? await listenWithRunnerRuntime(env.CHILD_RUNNER_AGENT_URL) : await threadline.listen(config.PORT, "127.0.0.1");
process.stdout.write(`listening ${port}\n`);

/**
 * CHILD_RUNNER_AGENT_URL: an application's own CopilotKit runtime on threadline.agentRunner() at
 * /app/copilotkit (its agent "remote" an HttpAgent at that URL), beside Threadline's app.
 */
async function listenWithRunnerRuntime(agentUrl: string): Promise<number> {
  const { runnerRuntimeListener, RUNNER_BASE } = await import("./runner-runtime.ts");
  const runtime = runnerRuntimeListener(threadline.agentRunner(), agentUrl);
  await threadline.start();
  const server = createServer((req, res) => (req.url?.startsWith(`${RUNNER_BASE}/`) ? runtime(req, res) : threadline.app(req, res)));
  await new Promise<void>((resolve, reject) => server.listen(config.PORT, "127.0.0.1", resolve).once("error", reject));
  return (server.address() as AddressInfo).port;
}

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    stopping = true;
    void threadline.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
