/**
 * Reload of a long thread: 100K events (one run whose input holds 20K messages, the shape one
 * 3.5 MB POST makes, then 160 runs of 500 streamed deltas each), on PGlite and, when DATABASE_URL
 * is set, Postgres. For each way of reading it back, the wall time and the longest the event loop
 * was blocked meanwhile (a timer probe), as ratios against a baseline in the
 * same process: reading the same log in pages (with a turn of the event loop between pages, as
 * the streams do) and doing nothing with it. The one-shot row is what
 * a reload did before it was paged (the whole log read, then reconstructed in one go).
 * Run with `npm run bench:reload`; prints a table. Not a test: nothing here asserts a time.
 */
import type { WorkflowEvent } from "../../protocol/events.ts";
import { reconstruct } from "../../protocol/reconstruct.ts";
import type { EventStore } from "../../server/store/types.ts";
import { backends, startTestServer } from "../support/server.ts";
import { readSseFrames } from "../support/sse-client.ts";
import { measure } from "./support/measure-block.ts";

const INPUT_MESSAGES = 20_000;
const RUNS = 160;
const DELTAS_PER_RUN = 493; // + 7 lifecycle and message events = 500 per run

interface Row {
  backend: string;
  what: string;
  ms: number;
  maxBlockMs: number;
  detail: string;
}

async function buildThread(store: EventStore, threadId: string): Promise<number> {
  await store.ensureThread(threadId, "default");
  let batch: WorkflowEvent[] = [{ type: "thread.created", data: { agentId: "default" } }];
  let total = 0;
  const flush = async (force = false) => {
    if (batch.length < 1000 && !force) return;
    total += (await store.append(threadId, batch)).length;
    batch = [];
  };
  const first = "r-input";
  batch.push({ type: "run.accepted", data: { runId: first, tools: [], context: [] } });
  for (let i = 0; i < INPUT_MESSAGES; i++) {
    batch.push({ type: "message.appended", data: { runId: first, source: "input", message: { id: `in-${i}`, role: "user", content: `message ${i} of a long pasted history` } } });
    await flush();
  }
  batch.push({ type: "workflow.started", data: { runId: first } }, { type: "workflow.suspended", data: { runId: first, reason: "input", pendingToolCallIds: [] } });
  for (let r = 0; r < RUNS; r++) {
    const runId = `r-${r}`;
    const messageId = `a-${r}`;
    batch.push(
      { type: "run.accepted", data: { runId, tools: [], context: [] } },
      { type: "message.appended", data: { runId, source: "input", message: { id: `u-${r}`, role: "user", content: `question ${r}` } } },
      { type: "workflow.started", data: { runId } },
      { type: "text.started", data: { runId, messageId } },
    );
    for (let d = 0; d < DELTAS_PER_RUN; d++) batch.push({ type: "text.delta", data: { runId, messageId, delta: "token " } });
    batch.push(
      { type: "text.ended", data: { runId, messageId } },
      { type: "message.appended", data: { runId, source: "agent", message: { id: messageId, role: "assistant", content: "token ".repeat(DELTAS_PER_RUN) } } },
      { type: "workflow.suspended", data: { runId, reason: "input", pendingToolCallIds: [] } },
    );
    await flush();
  }
  await flush(true);
  return total;
}

/** Reads a streamed response to its end; returns the number of SSE frames. */
async function drain(res: Response): Promise<number> {
  let frames = 0;
  for await (const _ of readSseFrames(res.body!)) frames++;
  return frames;
}

const table: Row[] = [];
for (const backend of backends()) {
  const server = await startTestServer({ backend, llmUrl: "http://127.0.0.1:9/v1" }); // no run is started
  try {
    const threadId = `reload-${backend}`;
    const built = performance.now();
    const events = await buildThread(server.store, threadId);
    console.log(`${backend}: built a thread of ${events} events in ${((performance.now() - built) / 1000).toFixed(1)} s`);
    const connect = (headers: Record<string, string> = {}) =>
      fetch(`${server.url}/api/agents/default/connect`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream", ...headers },
        body: JSON.stringify({ threadId }),
      });

    const rows: [string, () => Promise<string>][] = [
      ["baseline: the log read in pages, nothing done with it", async () => {
        let n = 0;
        for (let after = 0; ; ) {
          const page = await server.store.read(threadId, { after, limit: server.store.logPageSize });
          if (page.length === 0) break;
          after = page.at(-1)!.seq;
          n += page.length;
          await new Promise((r) => setImmediate(r)); // as the streams do between pages
        }
        return `${n} events`;
      }],
      ["before: whole log read, reconstructed in one go", async () => {
        const snap = reconstruct(await server.store.read(threadId));
        return `${snap.messages.length} messages`;
      }],
      ["connect, no cursor (reload: snapshot)", async () => `${await drain(await connect())} frames`],
      ["connect from seq 1 (every frame replayed)", async () => `${await drain(await connect({ "Last-Event-ID": "1" }))} frames`],
      ["GET /api/threads/:id", async () => {
        const res = await fetch(`${server.url}/api/threads/${threadId}`);
        return `${((await res.json()) as { messages: unknown[] }).messages.length} messages`;
      }],
    ];
    for (const [what, fn] of rows) table.push({ backend, what, ...(await measure(fn)) });
  } finally {
    await server.close();
  }
}

const pad = (s: string, n: number) => s.padEnd(n);
console.log(`\n${pad("backend", 9)}${pad("what", 56)}${pad("time", 10)}${pad("× base", 8)}${pad("max block", 11)}${pad("× base", 8)}result`);
for (const backend of new Set(table.map((r) => r.backend))) {
  const rows = table.filter((r) => r.backend === backend);
  const base = rows[0]!;
  for (const r of rows) {
    console.log(
      `${pad(backend, 9)}${pad(r.what, 56)}${pad(`${r.ms.toFixed(0)} ms`, 10)}${pad((r.ms / base.ms).toFixed(1), 8)}` +
        `${pad(`${r.maxBlockMs.toFixed(0)} ms`, 11)}${pad((r.maxBlockMs / base.maxBlockMs).toFixed(1), 8)}${r.detail}`,
    );
  }
}
