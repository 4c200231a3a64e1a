/**
 * One conformance suite = one `describe` per backend (PGlite always, Postgres when DATABASE_URL
 * is set), each with its own aimock upstream loaded with the suite's fixtures and its own real
 * server (test/support/server.ts) hosting the `default` agent and the kit's test agent.
 *
 * With AGUI_URL set, a suite marked `remote: true` runs once against that URL (its tests must
 * then use only `target().runUrl()` and `target().headers`); any other suite is skipped with a
 * notice (support/target.ts).
 */
import { randomUUID } from "node:crypto";
import { LLMock, type ChatCompletionRequest, type Fixture } from "@copilotkit/aimock";
import request from "supertest";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { Message } from "@ag-ui/core";
import type { AgentDefinition } from "../../../server/agents/define.ts";
import { defaultAgent } from "../../../server/agents/default-agent.ts";
import type { StoredEvent } from "../../../protocol/events.ts";
import { backends, startTestServer, type BackendName, type TestServer } from "../../support/server.ts";
import { IS_REMOTE, noticeSkipped, REMOTE_URL, TARGET_HEADERS } from "./target.ts";
import { conformanceAgent, TEST_AGENT_ID } from "./test-agent.ts";
import { startHeldUpstream, type HeldUpstream } from "./held-upstream.ts";
import { startUpstreamRecorder, type UpstreamRecorder } from "./upstream-recorder.ts";

export { TEST_AGENT_ID };

export interface ThreadJson {
  threadId: string;
  agentId: string;
  status: string;
  messages: Message[];
  state: unknown;
}

export interface LocalKit {
  backend: BackendName;
  server: TestServer;
  mock: LLMock;
  /** Present when the suite asked for it: sits between the server and aimock and times responses. */
  recorder: UpstreamRecorder | undefined;
  /** Present when the suite asked for it: sits between the server and aimock and can hold a response. */
  held: HeldUpstream | undefined;
  /** The chat requests aimock received whose user messages contain `marker`, in order. */
  llmRequests(marker: string): ChatCompletionRequest[];
  /** GET /api/threads/:id, asserted 200. */
  thread(threadId: string): Promise<ThreadJson>;
  /** The thread's raw workflow events, straight from the store. */
  log(threadId: string): Promise<StoredEvent[]>;
}

export interface Target {
  remote: boolean;
  /** The run endpoint of `agentId` (ignored against AGUI_URL, which names one endpoint). */
  runUrl(agentId?: string): string;
  headers: Record<string, string>;
  /** Our own server and its upstream; undefined against AGUI_URL. */
  local: LocalKit | undefined;
}

export interface SuiteOptions {
  fixtures?: Fixture[];
  /** Runs against AGUI_URL too (the suite's tests must cope with `local` being undefined). */
  remote?: boolean;
  /** Route the upstream through an UpstreamRecorder (timing checks). */
  recordUpstream?: boolean;
  /** Why the suite cannot run against AGUI_URL (for the skip notice). */
  localReason?: string;
  /** Route the upstream through a HeldUpstream (a response stopped mid-stream on cue). */
  holdUpstream?: boolean;
  /** Agents the suite needs besides `default` and the kit's test agent. */
  agents?: () => AgentDefinition[];
}

/** Migrations on a fresh PGlite take seconds, more on a loaded machine: beyond vitest's 30 s default. */
const START_TIMEOUT_MS = 120_000;

/** A fresh id for one test's thread: backends and client versions never share a thread. */
export function newThreadId(label: string): string {
  return `${label}-${randomUUID().slice(0, 8)}`;
}

/** `it` for the checks that need our store or upstream: skipped against AGUI_URL. */
export const itLocal = IS_REMOTE ? it.skip : it;

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p: { text?: string }) => p.text ?? "").join("");
  return "";
}

export function conformanceSuite(name: string, opts: SuiteOptions, body: (target: () => Target) => void): void {
  if (IS_REMOTE) {
    if (!opts.remote) {
      noticeSkipped(name, opts.localReason ?? "needs the kit's aimock fixtures and our store");
      describe.skip(`${name} (skipped against AGUI_URL)`, () => body(() => undefined as never));
      return;
    }
    const target: Target = { remote: true, runUrl: () => REMOTE_URL!, headers: TARGET_HEADERS, local: undefined };
    describe(`${name} [AGUI_URL]`, () => body(() => target));
    return;
  }
  describe.each(backends())(`${name} [%s]`, (backend) => {
    let kit: LocalKit | undefined;
    let target: Target | undefined;
    beforeAll(async () => {
      const mock = new LLMock({ port: 0, host: "127.0.0.1", chunkSize: 6, logLevel: "silent", journalMaxEntries: 0 });
      mock.addFixtures(opts.fixtures ?? []);
      const mockUrl = `${(await mock.start()).replace(/\/$/, "")}/v1`;
      const recorder = opts.recordUpstream ? await startUpstreamRecorder(mockUrl) : undefined;
      const held = opts.holdUpstream ? await startHeldUpstream(mockUrl) : undefined;
      const server = await startTestServer({
        backend,
        llmUrl: recorder?.url ?? held?.url ?? mockUrl,
        agents: [defaultAgent({ planStepDelayMs: 5 }), conformanceAgent(), ...(opts.agents?.() ?? [])],
      });
      kit = {
        backend,
        server,
        mock,
        recorder,
        held,
        llmRequests: (marker) =>
          mock
            .getRequests()
            .filter((e) => e.path.includes("/chat/completions"))
            .map((e) => e.body as ChatCompletionRequest)
            .filter((b) => b.messages.some((m) => m.role === "user" && textOf(m.content).includes(marker))),
        async thread(threadId) {
          const res = await request(server.url).get(`/api/threads/${encodeURIComponent(threadId)}`);
          if (res.status !== 200) throw new Error(`GET /api/threads/${threadId}: ${res.status} ${res.text}`);
          return res.body as ThreadJson;
        },
        log: (threadId) => server.store.read(threadId),
      };
      target = {
        remote: false,
        runUrl: (agentId = "default") => `${server.url}/api/agents/${agentId}/run`,
        headers: {},
        local: kit,
      };
    }, START_TIMEOUT_MS);
    afterAll(async () => {
      kit?.held?.release(); // a failed test must not leave a run waiting on a held response
      await kit?.server.close();
      await kit?.recorder?.close();
      await kit?.held?.close();
      await kit?.mock.stop();
    });
    body(() => {
      if (!target) throw new Error("the suite's server did not start");
      return target;
    });
  });
}

/**
 * A suite that needs no server of ours per backend (it builds what it tests in-process), but
 * cannot run against AGUI_URL either.
 */
export function inProcessSuite(name: string, reason: string, body: () => void): void {
  if (IS_REMOTE) {
    noticeSkipped(name, reason);
    describe.skip(`${name} (skipped against AGUI_URL)`, body);
    return;
  }
  describe(name, body);
}

/** The local kit, for tests that only run against our own server. */
export function local(target: Target): LocalKit {
  if (!target.local) throw new Error("this check needs the kit's own server (it cannot run against AGUI_URL)");
  return target.local;
}
