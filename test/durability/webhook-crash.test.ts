/**
 * A webhook outlives the instance that ended its run (docs/webhooks.md): real server processes on
 * one Postgres schema. A's run ends, its delivery goes out, and A is killed with SIGKILL while
 * the receiver holds that attempt unanswered. The delivery row was written in the commit of the
 * run's end, so nothing is lost: B, started afterwards, finds it due once A's claim expires
 * (2 × WEBHOOK_TIMEOUT_MS + 5 s) and delivers it, with the same body, a valid signature and the
 * same Idempotency-Key, so a receiver that saw A's attempt can drop B's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SPAWN_READY_BOUND_MS } from "../support/server-process.ts";
import { verifyWebhookSignature } from "../../server/webhooks/signature.ts";
import { DATABASE_URL, EVENT_BOUND_MS, noticeSkip, startCluster, within, type Cluster } from "../support/multiprocess-kit.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

noticeSkip("webhook-crash");

const SECRET = "crash-test-webhook-secret-0123";
const WEBHOOK_TIMEOUT_MS = 3_000;
/** A's claim on the row (worker.ts): after it, any instance takes the row. */
const CLAIM_MS = 2 * WEBHOOK_TIMEOUT_MS + 5_000;

describe.skipIf(!DATABASE_URL)("webhooks after SIGKILL between a run's end and its delivery", () => {
  let cluster: Cluster;
  let receiver: WebhookReceiver;
  const env = { WEBHOOK_SECRET: SECRET, WEBHOOK_ALLOWED_HOSTS: "127.0.0.1", WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS) };

  beforeAll(async () => {
    cluster = await startCluster();
    receiver = await startWebhookReceiver();
  }, 90_000);

  afterAll(async () => {
    await cluster?.close();
    await receiver?.close();
  });

  it("another instance delivers it, with the same body and Idempotency-Key", async () => {
    const a = await cluster.spawn("A", env);
    // A's attempt is held: A dies with it in flight. Every later one is answered 200.
    receiver.answer = (h) => (h.n === 0 ? "hold" : 200);
    const threadId = "hook-crash";
    const res = await fetch(`${a.url}/api/threads/${threadId}/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ agentId: "default", input: { runId: "r1", messages: [{ id: "u1", role: "user", content: "hello" }] }, webhook: { url: `${receiver.url}/hook` } }),
    });
    expect(res.status).toBe(202);
    const first = await within(EVENT_BOUND_MS, receiver.request(0), "A's delivery attempt", () => cluster.output());
    const killedAt = Date.now();
    await a.kill("SIGKILL");
    receiver.release(200); // too late: A's socket is gone, its attempt is recorded nowhere

    const b = await cluster.spawn("B", env);
    const second = await within(CLAIM_MS + EVENT_BOUND_MS, receiver.request(1), "B's delivery after A's claim expired", () => cluster.output());
    expect(second.at - killedAt).toBeGreaterThan(0);
    expect(second.body).toBe(first.body);
    expect(JSON.parse(second.body)).toEqual({ threadId, runId: "r1", status: "finished", at: expect.any(String) });
    expect(second.headers["idempotency-key"]).toBe(first.headers["idempotency-key"]);
    for (const h of [first, second]) expect(verifyWebhookSignature(SECRET, h.headers["x-threadline-signature"] as string, h.body)).toBe(true);

    // B recorded the delivery in the run's record; nothing is delivered a third time.
    let record: { webhook?: { delivered: boolean; attempts: number } } = {};
    await within(EVENT_BOUND_MS, (async () => {
      while (!record.webhook?.delivered) {
        record = (await (await fetch(`${b.url}/api/threads/${threadId}/runs/r1`)).json()) as typeof record;
        if (!record.webhook?.delivered) await new Promise((r) => setTimeout(r, 100));
      }
    })(), "the delivery recorded");
    expect(record.webhook).toMatchObject({ delivered: true, attempts: 2 });
    expect(receiver.received).toHaveLength(2);
  }, 2 * SPAWN_READY_BOUND_MS + 60_000);
});
