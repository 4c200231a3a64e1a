/**
 * Features AG-UI leaves to the server: connect (replay a thread), resume after a cursor
 * (`Last-Event-ID`), capabilities, cancel, interrupts. A server without one is reported
 * unsupported, never failed; a server that answers 2xx, i.e. claims the feature, and then gets
 * it wrong fails. Connect, resume and capabilities live at `<agentPath>/connect` and GET
 * `<agentPath>` (Threadline's routes, and CopilotKit runtime's shape); without agentPath the kit
 * does not guess.
 */
import type { Frame } from "../../protocol/frames.ts";
import { matchesMerged } from "../../protocol/merged-deltas.ts";
import { send, type Exchange } from "../http.ts";
import { events, type KitRun } from "../scenarios.ts";
import { fail, pass, unsupported, type Verdict } from "../types.ts";
import type { CheckContext, RuleSpec } from "./rule.ts";

const ABSENT = new Set([404, 405, 501]);
const chatRuns = (ctx: CheckContext): KitRun[] => {
  const chat = ctx.runs.find((r) => r.scenario === "chat");
  return chat ? ctx.runs.filter((r) => r.input.threadId === chat.input.threadId) : [];
};

async function connect(ctx: CheckContext, threadId: string, cursor?: string): Promise<Exchange> {
  return send(ctx.endpoints.connect!, {
    headers: { ...ctx.headers, "Content-Type": "application/json", Accept: "text/event-stream", ...(cursor !== undefined && { "Last-Event-ID": cursor }) },
    body: JSON.stringify({ threadId }),
    timeoutMs: ctx.timeoutMs,
    maxBytes: ctx.maxResponseBytes,
  });
}

/** Undefined when the answer is a readable stream of events; else the verdict to give. */
function unreadable(x: Exchange, route: string): Verdict | undefined {
  if (ABSENT.has(x.status)) return unsupported(`${route} answered ${x.status}`);
  if (x.status < 200 || x.status >= 300) return fail(`${route} answered HTTP ${x.status}: ${x.text.slice(0, 200)}`);
  if (x.ending !== "complete") return fail(`${route}: the response did not end (${x.ending})`);
  const bad = x.frames.find((f) => f.error);
  if (bad) return fail(`${route}: ${bad.error}`, { frame: bad.block.raw });
  return undefined;
}

export const connectProbe: RuleSpec = {
  name: "connect",
  title: "Optional: POST <agentPath>/connect {threadId} replays the thread as a stream of valid events.",
  async check(ctx) {
    const runs = chatRuns(ctx);
    if (!ctx.endpoints.connect) return unsupported("no agentPath given: AG-UI defines no connect route to probe");
    if (runs.length === 0) return unsupported("no chat run to reconnect to");
    const x = await connect(ctx, runs[0]!.input.threadId);
    const bad = unreadable(x, "connect");
    if (bad) return bad;
    if (!x.frames.some((f) => f.event)) return fail("connect answered an empty stream for a thread that has runs");
    return pass(`replayed ${x.frames.length} events`);
  },
};

export const resumeProbe: RuleSpec = {
  name: "resume",
  title:
    "Optional: connect with Last-Event-ID set to a frame's id: replays the frames that followed it, as sent live, or with stretches of consecutive deltas of one message merged into one frame under the last one's id.",
  async check(ctx) {
    const runs = chatRuns(ctx);
    if (!ctx.endpoints.connect) return unsupported("no agentPath given: AG-UI defines no connect route to probe");
    const frames = runs.flatMap((r) => r.exchange.frames.filter((f) => f.event));
    if (frames.length < 2) return unsupported("no chat run with events to resume");
    if (frames.some((f) => f.block.id === undefined || f.block.id === "")) return unsupported("the stream's frames carry no id: lines to resume after");
    const cut = Math.floor(frames.length / 2) - 1;
    const cursor = frames[cut]!.block.id!;
    const x = await connect(ctx, runs[0]!.input.threadId, cursor);
    const bad = unreadable(x, "connect with Last-Event-ID");
    if (bad) return bad;
    const expected = frames.slice(cut + 1);
    const got = x.frames.filter((f) => f.event);
    // A merged stretch leaves the client where the live stream's last delta of it did, under that
    // delta's id (protocol/merged-deltas.ts): the resume is still exact as a cursor.
    const asFrames = (fs: typeof got) => fs.map((f) => ({ id: f.block.id ?? "", event: f.event as unknown as Frame["event"] }));
    const match = matchesMerged(asFrames(expected), asFrames(got));
    if (!match.ok) {
      const have = got[match.at];
      return fail(`after id ${cursor}: ${match.why} (${expected.length} frames were sent live, the resume gave ${got.length})`, have ? { frame: have.block.raw } : {});
    }
    const merged = expected.length - got.length;
    return pass(`resumed after ${cursor}: the ${expected.length} frames that followed, as sent live${merged > 0 ? ` (${merged} deltas merged into the frames of their stretches)` : ""}`);
  },
};

export const capabilitiesProbe: RuleSpec = {
  name: "capabilities",
  title: "Optional: GET <agentPath> describes the agent as JSON (capabilities).",
  async check(ctx) {
    if (!ctx.endpoints.agent) return unsupported("no agentPath given");
    const x = await send(ctx.endpoints.agent, { method: "GET", headers: { ...ctx.headers, Accept: "application/json" }, timeoutMs: ctx.timeoutMs, maxBytes: ctx.maxResponseBytes });
    if (x.status < 200 || x.status >= 300) return unsupported(`GET ${ctx.endpoints.agent.pathname} answered ${x.status}`);
    let body: unknown;
    try {
      body = JSON.parse(x.text);
    } catch {
      return unsupported(`GET ${ctx.endpoints.agent.pathname} answered ${x.status} with no JSON`);
    }
    if (typeof body !== "object" || body === null) return unsupported("the agent's description is not a JSON object");
    const caps = (body as { capabilities?: unknown }).capabilities;
    return caps && typeof caps === "object"
      ? pass(`capabilities: ${Object.keys(caps).join(", ")}`)
      : unsupported(`GET ${ctx.endpoints.agent.pathname} has no "capabilities" (keys: ${Object.keys(body).join(", ")})`);
  },
};

export const cancelProbe: RuleSpec = {
  name: "cancel",
  title: "Optional: cancelling a run.",
  check: () =>
    unsupported("not probed: AG-UI has no cancel request (HttpAgent aborts its fetch), and what a server does then cannot be seen from outside"),
};

export const interruptsProbe: RuleSpec = {
  name: "interrupts",
  title: "Optional: a run that ends with RUN_FINISHED outcome interrupt names each interrupt (checked by event-schema).",
  check(ctx) {
    const ended = ctx.runs.flatMap(events).filter((e) => e.type === "RUN_FINISHED" && (e.outcome as { type?: string } | undefined)?.type === "interrupt");
    return ended.length > 0
      ? pass(`${ended.length} runs ended with an interrupt outcome`)
      : unsupported("no run ended with an interrupt (the kit's prompts do not ask for one)");
  },
};
