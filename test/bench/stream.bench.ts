/**
 * End-to-end streaming cost: a long answer (hundreds of text deltas) read straight from the
 * upstream through the openai SDK (the baseline: what any server pays), against the same answer
 * streamed through Threadline (every delta appended to the log, committed, read back and
 * projected to SSE), and against a replay of the finished run through /connect. On PGlite and,
 * when DATABASE_URL is set, Postgres. Run with `npm run bench:stream`; prints a table of ratios.
 * Not a test: nothing here asserts a time.
 */
import { LLMock } from "@copilotkit/aimock";
import { createOpenAIClient } from "../../server/models/openai/client.ts";
import { OpenAIModel } from "../../server/models/openai/model.ts";
import { backends, startTestServer } from "../support/server.ts";
import { postSse } from "../support/sse-client.ts";

const ROUNDS = 3;
const ANSWER = "All work and no play makes a durable stream. ".repeat(90); // ~4 KB, ~500 deltas of 8 chars

interface Row {
  what: string;
  deltas: number;
  firstMs: number;
  totalMs: number;
}

async function baseline(url: string): Promise<Row> {
  const model = new OpenAIModel({ client: createOpenAIClient({ baseURL: url, apiKey: "bench", maxRetries: 0 }), model: "bench" });
  const started = performance.now();
  let first = 0;
  let deltas = 0;
  for await (const d of model.stream({ messages: [{ role: "user", content: [{ type: "text", text: "long answer please" }] }], tools: [], signal: new AbortController().signal })) {
    if (d.type !== "text-delta") continue;
    if (deltas++ === 0) first = performance.now() - started;
  }
  return { what: "openai SDK straight from the upstream (baseline)", deltas, firstMs: first, totalMs: performance.now() - started };
}

async function throughServer(baseUrl: string, threadId: string): Promise<{ live: Row; replay: Row }> {
  const started = performance.now();
  const run = await postSse(`${baseUrl}/api/agents/default/run`, {
    threadId, runId: `${threadId}-run`, messages: [{ id: `${threadId}-u`, role: "user", content: "long answer please" }],
  });
  await run.waitFor((f) => f.event.type === "TEXT_MESSAGE_CONTENT");
  const firstMs = performance.now() - started;
  const frames = await run.done;
  const live = { what: "", deltas: frames.filter((f) => f.event.type === "TEXT_MESSAGE_CONTENT").length, firstMs, totalMs: performance.now() - started };

  const replayStart = performance.now();
  const replayStream = await postSse(`${baseUrl}/api/agents/default/connect`, { threadId, lastSeenEventId: "0" });
  await replayStream.waitFor((f) => f.event.type === "TEXT_MESSAGE_CONTENT");
  const replayFirst = performance.now() - replayStart;
  const replayed = await replayStream.done;
  const replay = { what: "", deltas: replayed.filter((f) => f.event.type === "TEXT_MESSAGE_CONTENT").length, firstMs: replayFirst, totalMs: performance.now() - replayStart };
  return { live, replay };
}

function sum(rows: Row[], what: string): Row {
  return {
    what,
    deltas: rows.reduce((a, r) => a + r.deltas, 0),
    firstMs: rows.reduce((a, r) => a + r.firstMs, 0) / rows.length,
    totalMs: rows.reduce((a, r) => a + r.totalMs, 0),
  };
}

const mock = new LLMock({ port: 0, host: "127.0.0.1", latency: 0, chunkSize: 8, logLevel: "silent" });
mock.addFixtures([{ match: { predicate: () => true }, response: { content: ANSWER } }]);
const url = `${(await mock.start()).replace(/\/$/, "")}/v1`;

const table: Row[] = [];
const base: Row[] = [];
const perBackend = new Map<string, { live: Row[]; replay: Row[] }>();
for (const backend of backends()) perBackend.set(backend, { live: [], replay: [] });
const servers = await Promise.all(backends().map(async (backend) => ({ backend, server: await startTestServer({ backend, llmUrl: url }) })));
for (let round = 0; round < ROUNDS; round++) {
  base.push(await baseline(url));
  for (const { backend, server } of servers) {
    const { live, replay } = await throughServer(server.url, `bench-${backend}-${round}`);
    perBackend.get(backend)!.live.push(live);
    perBackend.get(backend)!.replay.push(replay);
  }
}
table.push(sum(base, "openai SDK straight from the upstream (baseline)"));
for (const [backend, rows] of perBackend) {
  table.push(sum(rows.live, `${backend}: live run through Threadline (log + SSE)`));
  table.push(sum(rows.replay, `${backend}: replay of the finished run (/connect)`));
}
for (const { server } of servers) await server.close();
await mock.stop();

const b = table[0]!;
const rate = (r: Row) => (r.deltas / r.totalMs) * 1000;
console.log(`\n${ROUNDS} rounds of a ${ANSWER.length}-character answer; times are per-round means for first delta, totals for deltas/s.\n`);
console.log("| what | deltas | first delta (ms) | deltas/s | x baseline deltas/s |");
console.log("|---|---:|---:|---:|---:|");
for (const r of table) {
  console.log(`| ${r.what} | ${r.deltas} | ${r.firstMs.toFixed(1)} | ${Math.round(rate(r)).toLocaleString("en-US")} | ${(rate(r) / rate(b)).toFixed(2)}x |`);
}
