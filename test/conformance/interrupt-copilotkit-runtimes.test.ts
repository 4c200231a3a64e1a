/**
 * useInterrupt's resolve (approved, and approved with edits) through an application's OWN
 * CopilotKit runtime in front of Threadline:
 * the app runs @copilotkit/runtime 1.75 (v2: createCopilotRuntimeHandler, multi-route; v1: the
 * older copilotRuntimeNodeHttpEndpoint, single-route) with an AG-UI HttpAgent aimed at
 * Threadline's /api/agents/approvals/run, over real HTTP. The browser side is CopilotKit core 1.74
 * driven as react-core's useInterrupt drives it (interrupt-copilotkit-core.test.ts): the interrupt
 * is answered with runAgent({ agent, resume, runId }) under the interrupted run's own runId. The
 * app's HttpAgent is each @ag-ui/client an app may have (1.0.0 declares protocolVersion 1.0,
 * 0.0.59 declares nothing), so Threadline answers both forms through the runtime.
 */
import "../../server/copilotkit/telemetry.ts"; // first: telemetry off before the runtime loads
import { randomUUID } from "node:crypto";
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { HttpAgent as HttpAgent100 } from "@ag-ui/client";
import { HttpAgent as HttpAgent0059 } from "@ag-ui/client-0059";
import { LLMock } from "@copilotkit/aimock";
import { CopilotKitCore, ProxiedCopilotRuntimeAgent } from "@copilotkit/core";
import { CopilotRuntime as CopilotRuntimeV1, copilotRuntimeNodeHttpEndpoint, ExperimentalEmptyAdapter } from "@copilotkit/runtime";
import { CopilotRuntime, createCopilotRuntimeHandler } from "@copilotkit/runtime/v2";
import { createCopilotNodeHandler } from "@copilotkit/runtime/v2/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { admissionRunId } from "../../protocol/run-ids.ts";
import { approvalsAgent, APPROVALS_AGENT_ID } from "../../server/agents/approvals-agent.ts";
import { approvalsFixtures } from "../../server/demo/approvals-fixtures.ts";
import { CLIENT_VERSIONS, type ClientVersion } from "../support/agui-clients.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";

const RUNTIMES = ["v2", "v1"] as const;
type RuntimeKind = (typeof RUNTIMES)[number];
const BASE = "/api/copilotkit";

interface Finished {
  runId: string;
  outcome: string;
  interrupts: { id: string; reason: string }[];
}

/** The app's agent: an HttpAgent of the given @ag-ui/client version aimed at Threadline. */
function appAgent(version: ClientVersion, threadline: string) {
  const url = `${threadline}/api/agents/${APPROVALS_AGENT_ID}/run`;
  // The two classes are typed against two @ag-ui/core versions; the runtime takes either.
  return (version === "1.0.0" ? new HttpAgent100({ url }) : new HttpAgent0059({ url })) as never;
}

/** The app's own runtime on its own port, the way an application serves it. */
async function startAppRuntime(kind: RuntimeKind, version: ClientVersion, threadline: string): Promise<{ url: string; server: Server }> {
  let listener: RequestListener;
  if (kind === "v2") {
    const runtime = new CopilotRuntime({ agents: { [APPROVALS_AGENT_ID]: appAgent(version, threadline) } });
    listener = createCopilotNodeHandler(createCopilotRuntimeHandler({ runtime, basePath: BASE, activateChannels: false }));
  } else {
    const runtime = new CopilotRuntimeV1({ agents: { [APPROVALS_AGENT_ID]: appAgent(version, threadline) } });
    listener = copilotRuntimeNodeHttpEndpoint({ runtime, serviceAdapter: new ExperimentalEmptyAdapter(), endpoint: BASE }) as RequestListener;
  }
  const server = createServer(listener);
  await new Promise<void>((resolve, reject) => server.listen(0, "127.0.0.1", resolve).once("error", reject));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${BASE}`, server };
}

describe.each(backends())("useInterrupt's resolve through an app's own CopilotKit runtime in front of Threadline [%s]", (backend) => {
  let mock: LLMock;
  let threadline: TestServer;
  const sent: { threadId: string; to: string }[] = [];
  const apps: Server[] = [];

  beforeAll(async () => {
    mock = new LLMock({ port: 0, host: "127.0.0.1", chunkSize: 8, logLevel: "silent", journalMaxEntries: 0 });
    mock.addFixtures(approvalsFixtures());
    const llmUrl = `${(await mock.start()).replace(/\/$/, "")}/v1`;
    threadline = await startTestServer({ backend, llmUrl, agents: [approvalsAgent({ onSend: (e, at) => void sent.push({ threadId: at.threadId, to: e.to }) })] });
  }, 120_000);
  afterAll(async () => {
    for (const app of apps) {
      app.closeAllConnections();
      await new Promise<void>((r) => app.close(() => r()));
    }
    await threadline?.close();
    await mock?.stop();
  });

  // An approval as it is, and approved with edits: the edited address is the one the email goes to.
  const EDITED = { to: "carol@example.com", subject: "Hi", body: "Edited in the card." };
  const answers = [
    ["approved", { approved: true }],
    ["approved with edits", { approved: true, editedArgs: EDITED }],
  ] as const;
  const cases = RUNTIMES.flatMap((kind) => CLIENT_VERSIONS.flatMap((version) => answers.map(([label, payload]) => [kind, version, label, payload] as const)));

  it.each(cases)("runtime %s, app's HttpAgent from @ag-ui/client %s, %s: the resume is accepted, the email goes once, the thread settles", async (kind, version, label, payload) => {
    const app = await startAppRuntime(kind, version, threadline.url);
    apps.push(app.server);
    const threadId = `ck-${kind}-${version.replaceAll(".", "")}-${randomUUID().slice(0, 8)}`;
    const core = new CopilotKitCore({ runtimeUrl: app.url });
    // As in interrupt-copilotkit-core.test.ts: outside a browser the core does not fetch /info,
    // so the proxy agent it would build is built here, on the transport the runtime serves.
    const agent = new ProxiedCopilotRuntimeAgent({ runtimeUrl: app.url, agentId: APPROVALS_AGENT_ID, transport: kind === "v2" ? "rest" : "single" });
    agent.threadId = threadId;
    const finishes: Finished[] = [];
    const types: string[] = [];
    const errors: string[] = [];
    agent.subscribe({
      onEvent: ({ event }: { event: { type: string } }) => void types.push(event.type),
      onRunFinishedEvent: (p: { input: { runId: string }; outcome?: string; interrupts?: Finished["interrupts"] }) => {
        finishes.push({ runId: p.input.runId, outcome: p.outcome ?? "success", interrupts: p.interrupts ?? [] });
      },
      onRunErrorEvent: (p: { event: { message: string; code?: string } }) => void errors.push(`${p.event.code}: ${p.event.message}`),
    } as never);
    agent.addMessage({ id: `u-${randomUUID()}`, role: "user", content: `email the team [${threadId}]` });
    await core.runAgent({ agent });
    expect(errors).toEqual([]);
    const asked = finishes.at(-1)!;
    expect(asked).toMatchObject({ outcome: "interrupt" });
    expect(asked.interrupts[0]!.reason).toBe("tool_call");
    // AG-UI 1.0: the interrupt outcome comes after a STATE_SNAPSHOT and a MESSAGES_SNAPSHOT.
    expect(types.slice(-3)).toEqual(["STATE_SNAPSHOT", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]);

    // resolve(): the resume under the runId recorded for that interrupt.
    await core.runAgent({ agent, runId: asked.runId, resume: [{ interruptId: asked.interrupts[0]!.id, status: "resolved", payload }] });
    expect(errors).toEqual([]);
    expect(finishes.at(-1)).toMatchObject({ runId: asked.runId, outcome: "success" });
    const mine = sent.filter((s) => s.threadId === threadId);
    expect(mine).toHaveLength(1);
    if (label === "approved with edits") expect(mine[0]!.to).toBe(EDITED.to);
    else expect(mine[0]!.to).not.toBe(EDITED.to);
    // Threadline admitted the answer as the interrupted run's next admission, nothing else.
    const accepted = (await threadline.store.read(threadId)).filter((e) => e.type === "run.accepted").map((e) => e.data.runId);
    expect(accepted).toEqual([asked.runId, admissionRunId(asked.runId, 2)]);
    const thread = (await (await fetch(`${threadline.url}/api/threads/${threadId}`)).json()) as { status: string; pendingInterrupts: unknown[] };
    expect(thread).toMatchObject({ status: "WAITING", pendingInterrupts: [] });
    const text = agent.messages.filter((m) => m.role === "assistant").map((m) => m.content).join("");
    expect(text).toContain("Done: the email is sent.");
  });
});
