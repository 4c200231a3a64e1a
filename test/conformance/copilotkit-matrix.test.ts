/**
 * CopilotKit's browser client, headless (core 1.74 and 1.75), through each door to Threadline:
 * Threadline's own /api/copilotkit, and an application's own @copilotkit/runtime 1.75 (v1
 * single-route, v2 multi-route) whose agents are HttpAgents aimed at Threadline's run endpoint
 * (test/support/copilotkit-clients.ts). The ordinary flows (chat, a backend tool, shared state,
 * the plan demo, reasoning, an upstream error, regenerate, reload, useInterrupt's resolve) and
 * what each door makes of AG-UI 1.0's forms and interrupt details, on both backends, the model
 * being aimock with the demo scripts.
 *
 * The two cores differ only in CopilotKit Intelligence's websocket replay, which none of these
 * doors uses, so the app's HttpAgent version (1.0.0 declares protocolVersion 1.0, 0.0.59 nothing)
 * is paired with the core rather than crossed with it (COMBOS): every door meets both cores,
 * every app runtime both HttpAgents, and every HttpAgent both cores. The app's HttpAgents send `X-Threadline-On-Disconnect:
 * cancel`, so that a stop through the app's runtime (which aborts its request) cancels the run.
 */
import { randomUUID } from "node:crypto";
import { LLMock } from "@copilotkit/aimock";
import { ɵGLOBAL_STORE } from "@copilotkit/runtime/v2";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { approvalsAgent, APPROVALS_AGENT_ID } from "../../server/agents/approvals-agent.ts";
import { defaultAgent, forecast } from "../../server/agents/default-agent.ts";
import { defineAgent, defineTool } from "../../server/agents/define.ts";
import { AGENTIC_GENERATIVE_UI_ID, agenticGenerativeUiAgent } from "../../server/agents/demos/agentic-generative-ui.ts";
import { approvalsFixtures } from "../../server/demo/approvals-fixtures.ts";
import { DEMO_FAILURE_PROMPT, DEMO_PROMPTS, demoFixtures } from "../../server/demo/fixtures.ts";
import { offers } from "../../server/demo/request.ts";
import {
  type AppAgentVersion,
  type AppRuntime,
  type AppRuntimeKind,
  CAPPED,
  type CkEvent,
  type CkSession,
  ckSession,
  type CoreVersion,
  type Door,
  type FrontendTool,
  startAppRuntime,
  threadlineDoor,
} from "../support/copilotkit-clients.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";

const EXPIRING = "approvals-expiring";
const IMAGER = "imager";
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const AGENT_IDS = ["default", AGENTIC_GENERATIVE_UI_ID, APPROVALS_AGENT_ID, EXPIRING, IMAGER];

/** A tool whose result has an image part: AG-UI 1.0 sends it as content parts, the legacy form as its text. */
const imager = defineAgent({
  id: IMAGER,
  instructions: "Test agent.",
  tools: [
    defineTool({
      name: "draw_chart",
      description: "Draws a chart.",
      inputSchema: z.object({ title: z.string() }),
      execute: ({ title }) => ({ content: [{ type: "text", text: `chart: ${title}` }, { type: "image", data: PNG, mimeType: "image/png" }] }),
    }),
  ],
});
const imagerFixtures = [
  // After the result (an image result is followed by a user message carrying it, so it is not always last).
  { match: { predicate: (req) => offers(req, "draw_chart") && req.messages.some((m) => m.role === "tool") }, response: { content: "drawn" } },
  { match: { predicate: (req) => offers(req, "draw_chart") }, response: { toolCalls: [{ name: "draw_chart", arguments: '{"title":"sales"}' }] } },
] satisfies Parameters<LLMock["addFixtures"]>[0];

interface DoorSpec {
  label: string;
  /** Absent: Threadline's own /api/copilotkit. */
  app?: { kind: AppRuntimeKind; agent: AppAgentVersion };
}
const THREADLINE: DoorSpec = { label: "/api/copilotkit" };
const app = (kind: AppRuntimeKind, agent: AppAgentVersion): DoorSpec => ({ label: `app ${kind} + HttpAgent ${agent}`, app: { kind, agent } });
const APP_DOORS = [app("v1", "0.0.59"), app("v1", "1.0.0"), app("v2", "0.0.59"), app("v2", "1.0.0")];
/** What docs/compatibility.md advises an app with a 1.0.0 HttpAgent to give its runtime. */
const CAPPED_DOOR = app("v2", CAPPED);

type Combo = [CoreVersion, DoorSpec];
const COMBOS: Combo[] = [
  ["1.74", THREADLINE],
  ["1.75", THREADLINE],
  // A Latin square: each runtime meets each HttpAgent and each core, each HttpAgent each core.
  ["1.74", APP_DOORS[0]!], // v1, 0.0.59
  ["1.75", APP_DOORS[1]!], // v1, 1.0.0
  ["1.75", APP_DOORS[2]!], // v2, 0.0.59
  ["1.74", APP_DOORS[3]!], // v2, 1.0.0
];
const APP_COMBOS = COMBOS.filter(([, d]) => d.app);

const name = "core %s via %s";
const cases = (combos: Combo[]) => combos.map(([core, door]) => [core, door.label, door] as const);

/** The door relays AG-UI 1.0's forms: an app whose HttpAgent declared protocolVersion 1.0. */
const relays10 = (door: DoorSpec) => door.app?.agent === "1.0.0";

const ofType = (events: CkEvent[], type: string) => events.filter((e) => e.type === type);

interface ThreadView {
  status: string;
  branch: string;
  state: unknown;
  pendingInterrupts: { id: string }[];
  messages: { id: string; role: string; content?: unknown; toolCallId?: string }[];
}

describe.each(backends())("CopilotKit core, headless, through each door [%s]", (backend) => {
  let mock: LLMock;
  let server: TestServer;
  const apps = new Map<string, AppRuntime>();
  const sent: { threadId: string; to: string }[] = [];
  const onSend = (email: { to: string }, at: { threadId: string }) => void sent.push({ threadId: at.threadId, to: email.to });
  const sentIn = (threadId: string) => sent.filter((s) => s.threadId === threadId).map((s) => s.to);

  beforeAll(async () => {
    mock = new LLMock({ port: 0, host: "127.0.0.1", chunkSize: 64, logLevel: "silent", journalMaxEntries: 0 });
    mock.addFixtures([...approvalsFixtures(), ...imagerFixtures, ...demoFixtures()]);
    const llmUrl = `${(await mock.start()).replace(/\/$/, "")}/v1`;
    server = await startTestServer({
      backend,
      llmUrl,
      agents: [
        // Plan steps that wait (on the abort signal): a stop always finds the run busy.
        defaultAgent({ planStepDelayMs: 60_000 }),
        agenticGenerativeUiAgent({ stepDelayMs: 2 }),
        approvalsAgent({ onSend }),
        approvalsAgent({ onSend, id: EXPIRING, approvalExpiresInMs: 1 }),
        imager,
      ],
    });
    for (const d of [...APP_DOORS, CAPPED_DOOR]) {
      apps.set(d.label, await startAppRuntime(d.app!.kind, d.app!.agent, server.url, AGENT_IDS, { "X-Threadline-On-Disconnect": "cancel" }));
    }
  }, 120_000);
  afterAll(async () => {
    for (const a of apps.values()) await a.close();
    await server?.close();
    await mock?.stop();
  });

  const doorOf = (spec: DoorSpec): Door => (spec.app ? apps.get(spec.label)! : threadlineDoor(server.url));
  const open = (core: CoreVersion, spec: DoorSpec, agentId: string, threadId = `ck-${randomUUID().slice(0, 8)}`, tools?: FrontendTool[]) =>
    ckSession(core, doorOf(spec), agentId, threadId, { ...(tools && { tools }) });
  const thread = async (threadId: string, query = "") => (await (await fetch(`${server.url}/api/threads/${threadId}${query}`)).json()) as ThreadView;
  const clean = (s: CkSession) => expect({ runErrors: s.runErrors, runFailures: s.runFailures, coreErrors: s.coreErrors }).toEqual({ runErrors: [], runFailures: [], coreErrors: [] });

  describe.concurrent("the ordinary flows", () => {
    it.each(cases(COMBOS))(`chat: the text streams, the answer is the final message (${name})`, async (core, _label, door) => {
      const s = open(core, door, "default");
      await s.say("Hello there");
      clean(s);
      const streamed = ofType(s.events, "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("");
      expect(ofType(s.events, "TEXT_MESSAGE_CONTENT").length).toBeGreaterThan(1);
      expect(streamed).toContain("built-in **demo model**");
      expect(s.agent.messages.map((m) => [m.role, m.content])).toEqual([["user", "Hello there"], ["assistant", streamed]]);
      expect(s.finishes.map((f) => f.outcome)).toEqual(["success"]);
      const view = await thread(s.agent.threadId);
      expect(view.status).toBe("WAITING");
      expect(view.messages.map((m) => m.id)).toEqual(s.agent.messages.map((m) => m.id));
      // RUN_STARTED.protocolVersion reaches the page only when the app's HttpAgent declared 1.0.
      const [started] = s.events;
      expect(started!.type).toBe("RUN_STARTED");
      if (relays10(door)) expect(started!.protocolVersion).toBe("1.0");
      else expect(started).not.toHaveProperty("protocolVersion");
    });

    it.each(cases(COMBOS))(`a backend tool: its call and its result reach the page (${name})`, async (core, _label, door) => {
      const s = open(core, door, "default");
      await s.say(DEMO_PROMPTS.weather);
      clean(s);
      const [start] = ofType(s.events, "TOOL_CALL_START");
      expect(start).toMatchObject({ toolCallName: "get_weather" });
      const args = ofType(s.events, "TOOL_CALL_ARGS").map((e) => e.delta).join("");
      expect(JSON.parse(args)).toEqual({ location: "Paris" });
      const [result] = ofType(s.events, "TOOL_CALL_RESULT");
      expect(result).toMatchObject({ toolCallId: start!.toolCallId });
      expect(JSON.parse(result!.content as string)).toEqual(forecast("Paris"));
      expect(s.agent.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
      expect(s.reply()).toContain("In Paris it is");
    });

    it.each(cases(COMBOS))(`shared state: the page's state goes in, STATE_SNAPSHOT and STATE_DELTA come back into it (${name})`, async (core, _label, door) => {
      const s = open(core, door, "default");
      // What the page holds goes with the run; the tool's delta builds on it.
      s.agent.setState({ theme: "dark" });
      await s.say(DEMO_PROMPTS.tasks);
      clean(s);
      const types = s.events.map((e) => e.type);
      expect(types.indexOf("STATE_SNAPSHOT")).toBeLessThan(types.indexOf("STATE_DELTA"));
      expect(ofType(s.events, "STATE_SNAPSHOT")[0]!.snapshot).toEqual({ theme: "dark" });
      const state = s.agent.state as { theme: string; tasks: { title: string }[] };
      expect(state.theme).toBe("dark");
      expect(state.tasks.map((t) => t.title)).toContain("water the plants");
      expect((await thread(s.agent.threadId)).state).toEqual(s.agent.state);
    });

    it.each(cases(COMBOS))(`the plan demo: each step's progress reaches the page's state (${name})`, async (core, _label, door) => {
      const s = open(core, door, AGENTIC_GENERATIVE_UI_ID);
      await s.say("Plan to launch the website");
      clean(s);
      const progress = ofType(s.events, "STATE_DELTA").flatMap((e) =>
        (e.delta as { path: string; value?: unknown }[]).filter((op) => /^\/steps\/\d+\/status$/.test(op.path)).map((op) => `${op.path.split("/")[2]}:${op.value}`),
      );
      expect(progress).toEqual(["0:running", "0:completed", "1:running", "1:completed", "2:running", "2:completed", "3:running", "3:completed"]);
      const { steps } = s.agent.state as { steps: { description: string; status: string }[] };
      expect(steps.map((x) => x.status)).toEqual(["completed", "completed", "completed", "completed"]);
      expect(steps[2]!.description).toBe("Carrying out: launch the website");
      expect(s.reply()).toContain("all 4 steps");
    });

    it.each(cases(COMBOS))(`reasoning: REASONING_* before the answer, kept as a reasoning message (${name})`, async (core, _label, door) => {
      const s = open(core, door, "default");
      await s.say(DEMO_PROMPTS.reasoning);
      clean(s);
      const types = s.events.map((e) => e.type).filter((t) => t.startsWith("REASONING_") || t.startsWith("TEXT_MESSAGE_"));
      const squeezed = types.filter((t, i) => t !== types[i - 1]);
      expect(squeezed).toEqual([
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "REASONING_END",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
      ]);
      const thought = ofType(s.events, "REASONING_MESSAGE_CONTENT").map((e) => e.delta).join("");
      expect(thought).toContain("The user wants me to reason");
      expect(s.agent.messages.map((m) => m.role)).toEqual(["user", "reasoning", "assistant"]);
      expect(s.agent.messages[1]!.content).toBe(thought);
    });

    it.each(cases(COMBOS))(`an upstream error: RUN_ERROR reaches the page, the thread settles and goes on (${name})`, async (core, _label, door) => {
      const s = open(core, door, "default");
      await s.say(DEMO_FAILURE_PROMPT);
      expect(s.runErrors).toEqual([expect.stringMatching(/^UPSTREAM_HTTP_503: The model request failed/)]);
      expect(s.finishes).toEqual([]);
      expect((await thread(s.agent.threadId)).status).toBe("FAILED");
      await s.say("Hello again");
      expect(s.finishes.map((f) => f.outcome)).toEqual(["success"]);
      expect((await thread(s.agent.threadId)).status).toBe("WAITING");
    });

    it.each(cases(COMBOS))(`regenerate: the history up to the question runs again; the thread forks, the old answer stays on its branch (${name})`, async (core, _label, door) => {
      const s = open(core, door, "default");
      await s.say("Hello there");
      const old = s.agent.messages.findLast((m) => m.role === "assistant")!;
      // CopilotChat's regenerate (react-core's reload(messageId)): keep up to the last question, run.
      const question = s.agent.messages.findLastIndex((m) => m.role === "user");
      s.agent.setMessages(s.agent.messages.slice(0, question + 1));
      await s.run();
      clean(s);
      const view = await thread(s.agent.threadId);
      expect(view.branch).not.toBe("main");
      expect(s.agent.messages.map((m) => m.id)).toEqual(view.messages.map((m) => m.id));
      expect(view.messages.map((m) => m.id)).not.toContain(old.id);
      expect(view.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
      expect(s.reply()).toContain("built-in **demo model**");
      expect((await thread(s.agent.threadId, "?branch=main")).messages.map((m) => m.id)).toContain(old.id);
    });

    it.each(cases(COMBOS))(`reload: a new page on the thread gets its messages and state back (${name})`, async (core, _label, door) => {
      const s = open(core, door, "default");
      await s.say(DEMO_PROMPTS.tasks);
      const page = open(core, door, "default", s.agent.threadId);
      await page.connect();
      clean(page);
      expect(page.agent.messages.map((m) => [m.id, m.role, m.content])).toEqual(s.agent.messages.map((m) => [m.id, m.role, m.content]));
      expect(page.agent.state).toEqual(s.agent.state);
      // Threadline's door answers from the log (a snapshot); an app's runtime replays its own memory.
      if (!door.app) expect(page.events.map((e) => e.type)).toContain("MESSAGES_SNAPSHOT");
    });

    it.each(cases(COMBOS))(`useInterrupt's resolve, approving with edits: answered under the interrupted run's id, the edited email goes once, the thread settles (${name})`, async (core, _label, door) => {
      const s = open(core, door, APPROVALS_AGENT_ID);
      await s.say("email the team");
      const ask = s.finishes.at(-1)!;
      expect(ask.outcome).toBe("interrupt");
      expect(ask.interrupts.map((i) => i.reason)).toEqual(["tool_call"]);
      expect(s.events.slice(-3).map((e) => e.type)).toEqual(["STATE_SNAPSHOT", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]);
      const edited = { to: "carol@example.com", subject: "Status update", body: "Edited in the card." };
      expect(await s.answer([{ id: ask.interrupts[0]!.id, payload: { approved: true, editedArgs: edited } }])).toEqual(["resume"]);
      clean(s);
      expect(s.finishes.at(-1)).toMatchObject({ runId: ask.runId, outcome: "success" });
      expect(sentIn(s.agent.threadId)).toEqual([edited.to]);
      expect(await thread(s.agent.threadId)).toMatchObject({ status: "WAITING", pendingInterrupts: [] });
      expect(s.reply()).toContain("Done: the email is sent.");
    });
  });

  describe.concurrent("AG-UI 1.0's forms and the interrupt details, door by door", () => {
    it.each(cases(COMBOS))(`a stop from the page cancels the run (${name})`, async (core, _label, door) => {
      const s = open(core, door, "default");
      const done = s.say(DEMO_PROMPTS.plan);
      await vi.waitFor(() => expect(ofType(s.events, "STATE_DELTA").length).toBeGreaterThan(0), { timeout: 10_000 });
      s.core.stopAgent({ agent: s.agent });
      await done;
      // Threadline's door ends the page's stream with Threadline's own frame (the legacy form);
      // an app's runtime ends it itself when it aborts its request to Threadline.
      expect(s.events.at(-1)).toMatchObject(door.app ? { type: "RUN_ERROR", code: "abort" } : { type: "RUN_ERROR", code: "CANCELLED" });
      await vi.waitFor(async () => expect((await thread(s.agent.threadId)).status).toBe("CANCELLED"), { timeout: 10_000 });
    });

    it.each(cases(APP_COMBOS))(`a cancel from elsewhere reaches the page through the app's runtime in the form its HttpAgent got (${name})`, async (core, _label, door) => {
      const s = open(core, door, "default");
      const done = s.say(DEMO_PROMPTS.plan);
      await vi.waitFor(() => expect(ofType(s.events, "STATE_DELTA").length).toBeGreaterThan(0), { timeout: 10_000 });
      expect((await fetch(`${server.url}/api/threads/${s.agent.threadId}/cancel`, { method: "POST" })).status).toBe(200);
      await done;
      if (relays10(door)) {
        // RUN_FINISHED{outcome: cancelled}: dropped unparsed by the page's client; its run just ends.
        clean(s);
        expect(["RUN_FINISHED", "RUN_ERROR"]).not.toContain(s.events.at(-1)!.type);
      } else {
        expect(s.events.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "CANCELLED" });
      }
      expect((await thread(s.agent.threadId)).status).toBe("CANCELLED");
    });

    it.each(cases(COMBOS))(`a tool's image: what the page gets of its content parts (${name})`, async (core, _label, door) => {
      const s = open(core, door, IMAGER);
      await s.say("draw it");
      if (relays10(door)) {
        // 1.0's content parts, relayed as they are: the page's 0.0.59 client cannot parse the
        // result, and CopilotKit drops what fails to parse without a word: the run ends there for
        // the page (Threadline finishes it).
        clean(s);
        expect(ofType(s.events, "TOOL_CALL_END")).toHaveLength(1);
        expect(ofType(s.events, "TOOL_CALL_RESULT")).toEqual([]);
        expect(s.finishes).toEqual([]);
        expect(s.agent.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
      } else {
        clean(s);
        expect(s.agent.messages.find((m) => m.role === "tool")!.content).toBe("chart: sales");
        expect(s.reply()).toBe("drawn");
      }
      await vi.waitFor(async () => expect((await thread(s.agent.threadId)).status).toBe("WAITING"), { timeout: 10_000 });
    });

    it.each(cases(COMBOS))(`a frontend tool's call: what ends the run that leaves it waiting; the page runs it and goes on (${name})`, async (core, _label, door) => {
      const painted: string[] = [];
      const tool: FrontendTool = {
        name: "change_background",
        description: "Changes the page's background.",
        parameters: z.object({ background: z.string() }),
        handler: (args) => {
          painted.push((args as { background: string }).background);
          return "done";
        },
      };
      const s = open(core, door, "default", undefined, [tool]);
      await s.say(DEMO_PROMPTS.background);
      expect(painted).toEqual(["blue"]);
      clean(s);
      if (relays10(door)) {
        // RUN_FINISHED{outcome: {type: "success", pendingToolCallIds}}: dropped unparsed by the
        // page's client; the core runs the tool from the call it has, and follows up.
        expect(s.finishes).toHaveLength(1);
      } else {
        expect(s.finishes).toHaveLength(2);
        expect(s.finishes[0]!.event).not.toHaveProperty("outcome");
      }
      expect(s.reply()).toContain("Done!");
    });

    it.each(cases(COMBOS))(`expiresAt: the page sees it and refuses a late answer itself; what settles the thread (${name})`, async (core, _label, door) => {
      const s = open(core, door, EXPIRING);
      await s.say("email the team");
      const [asked] = s.finishes.at(-1)!.interrupts;
      expect(asked!.expiresAt).toMatch(/^\d{4}-\d\d-\d\dT/);
      await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(Date.parse(asked!.expiresAt!)));
      const logged = (await server.store.read(s.agent.threadId)).length;
      // useInterrupt does not send an expired answer; the page's client (0.0.59) then refuses any
      // run while it holds the expired question, a cancel of it included.
      expect(await s.answer([{ id: asked!.id, payload: { approved: true } }])).toEqual(["expired"]);
      await s.say("what now?");
      expect(s.coreErrors).toEqual([expect.stringContaining(`pending interrupt(s) not addressed by resume: ${asked!.id}`)]);
      expect((await server.store.read(s.agent.threadId)).length).toBe(logged);
      expect(await thread(s.agent.threadId)).toMatchObject({ status: "WAITING", pendingInterrupts: [] });
      // A reload: Threadline's door hands the thread over without the expired question, and the
      // next message settles it (cancelled as expired); an app's runtime replays the asking run
      // from its memory, question included, so the reloaded page is refused in the same way.
      const page = open(core, door, EXPIRING, s.agent.threadId);
      await page.connect();
      await page.say("what now?");
      if (door.app) {
        expect(page.coreErrors).toEqual([expect.stringContaining(`pending interrupt(s) not addressed by resume: ${asked!.id}`)]);
        expect((await server.store.read(s.agent.threadId)).length).toBe(logged);
      } else {
        clean(page);
        expect(page.finishes.at(-1)!.outcome).toBe("success");
        const resolved = (await server.store.read(s.agent.threadId)).find((e) => e.type === "interrupt.resolved");
        expect(resolved?.data).toMatchObject({ interruptId: asked!.id, status: "cancelled", via: "expired" });
      }
      expect(sentIn(s.agent.threadId)).toEqual([]);
    });

    it.each(cases(COMBOS))(`parallel approvals: asked in one outcome, answered together; a reload shows each decision (${name})`, async (core, _label, door) => {
      const s = open(core, door, APPROVALS_AGENT_ID);
      await s.say("send two emails");
      const ask = s.finishes.at(-1)!;
      expect(ask.interrupts).toHaveLength(2);
      // useInterrupt holds the first answer until the second is given, then resumes once.
      const kinds = await s.answer([
        { id: ask.interrupts[0]!.id, payload: { approved: true } },
        { id: ask.interrupts[1]!.id, payload: { approved: false, reason: "not the board" } },
      ]);
      expect(kinds).toEqual(["waiting", "resume"]);
      clean(s);
      expect(s.finishes.at(-1)).toMatchObject({ runId: ask.runId, outcome: "success" });
      expect(sentIn(s.agent.threadId)).toEqual(["team@example.com"]);
      const approvals = (messages: { role: string; content?: unknown }[]) =>
        messages.filter((m) => m.role === "tool").map((m) => (JSON.parse(m.content as string) as { approval: string }).approval);
      expect(approvals((await thread(s.agent.threadId)).messages)).toEqual(["approved", "denied"]);
      const page = open(core, door, APPROVALS_AGENT_ID, s.agent.threadId);
      await page.connect();
      clean(page);
      expect(approvals(page.agent.messages)).toEqual(["approved", "denied"]);
    });

    it(`1.0.0's HttpAgent capped at 0.0.59 (maxProtocolVersion) in the app's runtime gets the forms the page can take (core 1.75 via ${CAPPED_DOOR.label})`, async () => {
      const image = open("1.75", CAPPED_DOOR, IMAGER);
      await image.say("draw it");
      clean(image);
      expect(image.events[0]).not.toHaveProperty("protocolVersion");
      expect(image.agent.messages.find((m) => m.role === "tool")!.content).toBe("chart: sales");
      expect(image.reply()).toBe("drawn");
      const tool: FrontendTool = { name: "change_background", description: "Changes the page's background.", parameters: z.object({ background: z.string() }), handler: () => "done" };
      const paint = open("1.75", CAPPED_DOOR, "default", undefined, [tool]);
      await paint.say(DEMO_PROMPTS.background);
      clean(paint);
      expect(paint.finishes).toHaveLength(2);
      expect(paint.finishes[0]!.event).not.toHaveProperty("outcome");
    });

    it.each(cases(APP_COMBOS))(`reload through an app's runtime is the runtime's memory: once the app restarts, the page gets nothing (${name})`, async (core, _label, door) => {
      const s = open(core, door, "default");
      await s.say("Hello there");
      // What a restart of the app does to its runtime's InMemoryAgentRunner: the thread is gone.
      // Its store is one per process, shared by every runtime here, so only this thread goes
      // (clearThreads() would empty it under the other tests running beside this one).
      const store = ɵGLOBAL_STORE as unknown as { removeThread(id: string, entry: unknown): void };
      store.removeThread(s.agent.threadId, ɵGLOBAL_STORE.peek(s.agent.threadId));
      const page = open(core, door, "default", s.agent.threadId);
      await page.connect();
      expect(page.agent.messages).toEqual([]);
      expect((await thread(s.agent.threadId)).messages.map((m) => m.id)).toEqual(s.agent.messages.map((m) => m.id));
    });
  });

  it("capabilities: Threadline's /info lists each agent's; an app's own /info lists the agent without them", async () => {
    const capabilities = ((await (await fetch(`${server.url}/api/agents/${APPROVALS_AGENT_ID}`)).json()) as { capabilities: unknown }).capabilities;
    const ours = (await (await fetch(`${threadlineDoor(server.url).runtimeUrl}/info`)).json()) as { agents: Record<string, { capabilities?: unknown }> };
    expect(ours.agents[APPROVALS_AGENT_ID]!.capabilities).toEqual(capabilities);
    for (const d of [...APP_DOORS, CAPPED_DOOR]) {
      const door = doorOf(d);
      const res =
        door.transport === "rest"
          ? await fetch(`${door.runtimeUrl}/info`)
          : await fetch(door.runtimeUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ method: "info" }) });
      const info = (await res.json()) as { agents: Record<string, object> };
      expect(info.agents[APPROVALS_AGENT_ID], d.label).toBeDefined();
      expect(info.agents[APPROVALS_AGENT_ID], d.label).not.toHaveProperty("capabilities");
    }
  });
});
