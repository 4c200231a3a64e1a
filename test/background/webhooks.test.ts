/**
 * Webhooks through the real HTTP API (docs/webhooks.md): a run's end is posted to the URL its run
 * named (else its tenant's, else the server's), signed as the issue fixes it
 * (X-Threadline-Signature t=..,v1=HMAC-SHA256("<t>.<body>")), with an Idempotency-Key stable
 * across attempts; a receiver that answers 500 gets it again after the backoff; one that never
 * accepts it is given up after WEBHOOK_MAX_ATTEMPTS, which the run's record and the metrics say.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_FAILURE_PROMPT } from "../../server/demo/fixtures.ts";
import { verifyWebhookSignature } from "../../server/webhooks/signature.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

const SECRET = "test-webhook-secret-0123456789";
const ACME_SECRET = "acme-webhook-secret-0123456789";

describe.each(backends())("webhooks on %s", (backend) => {
  let receiver: WebhookReceiver;
  let server: TestServer;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    server = await startTestServer({
      backend,
      env: {
        API_KEYS: "key-default,acme:key-acme",
        WEBHOOK_SECRET: SECRET,
        WEBHOOK_TENANT_SECRETS: `acme:${ACME_SECRET}`,
        WEBHOOK_URL: `${receiver.url}/server`,
        WEBHOOK_TENANT_URLS: `acme:${receiver.url}/acme-default`,
        WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
        WEBHOOK_RETRY_BASE_MS: "200",
        WEBHOOK_MAX_ATTEMPTS: "3",
        WEBHOOK_TIMEOUT_MS: "5000",
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });

  const start = (threadId: string, body: object, key = "key-default") =>
    request(server.url).post(`/api/threads/${threadId}/runs`).set("authorization", `Bearer ${key}`).send(body);
  const status = (threadId: string, runId: string, key = "key-default") =>
    request(server.url).get(`/api/threads/${threadId}/runs/${runId}`).set("authorization", `Bearer ${key}`);
  /** One of the server's counters (GET /metrics takes an API key when API_KEYS is set). */
  async function attempts(outcome: string): Promise<number> {
    const text = (await request(server.url).get("/metrics").set("authorization", "Bearer key-default")).text;
    const line = text.split("\n").find((l) => l.startsWith(`threadline_webhook_attempts_total{outcome="${outcome}"} `));
    if (!line) throw new Error(`no webhook attempts series for ${outcome}`);
    return Number(line.split(" ").at(-1));
  }
  const hooksTo = (path: string) => receiver.received.filter((h) => h.path === path);
  /** Waits (on the run's record, which the worker writes) until its delivery is settled. */
  async function settled(threadId: string, runId: string, key?: string) {
    for (;;) {
      const res = await status(threadId, runId, key);
      const w = res.body.webhook;
      if (w && (w.delivered || w.gaveUpAt)) return res.body;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it("posts the run's end signed, and again with the same Idempotency-Key after the receiver answered 500", async () => {
    const threadId = `hook-retry-${backend}`;
    // The first attempt is answered 500, every later one 200.
    receiver.answer = (h) => (h.path === "/retry" && hooksTo("/retry").length === 1 ? 500 : 200);
    const failedBefore = await attempts("failed");
    const res = await start(threadId, { agentId: "default", input: { runId: "r1", messages: [{ id: "u1", role: "user", content: "hello" }] }, webhook: { url: `${receiver.url}/retry` } });
    expect(res.status).toBe(202);

    const record = await settled(threadId, "r1");
    expect(record.webhook).toMatchObject({ url: `${receiver.url}/retry`, attempts: 2, delivered: true, lastStatus: 200 });
    const hooks = hooksTo("/retry");
    expect(hooks).toHaveLength(2);
    for (const h of hooks) {
      expect(verifyWebhookSignature(SECRET, h.headers["x-threadline-signature"] as string, h.body)).toBe(true);
      expect(h.headers["content-type"]).toBe("application/json");
    }
    // A signature made with another key, or over another body, does not verify.
    expect(verifyWebhookSignature(ACME_SECRET, hooks[0]!.headers["x-threadline-signature"] as string, hooks[0]!.body)).toBe(false);
    expect(verifyWebhookSignature(SECRET, hooks[0]!.headers["x-threadline-signature"] as string, hooks[0]!.body.replace("finished", "failed"))).toBe(false);
    expect(hooks[0]!.headers["idempotency-key"]).toMatch(/^[0-9a-f]{32}$/);
    expect(hooks[1]!.headers["idempotency-key"]).toBe(hooks[0]!.headers["idempotency-key"]);
    expect(hooks[1]!.body).toBe(hooks[0]!.body);
    const body = JSON.parse(hooks[0]!.body);
    expect(body).toEqual({ threadId, runId: "r1", status: "finished", at: expect.any(String) });
    expect(Number.isNaN(Date.parse(body.at))).toBe(false);
    expect(await attempts("failed")).toBe(failedBefore + 1);
  });

  it("a failed run's end carries its error; a run that names no URL goes to the server's WEBHOOK_URL", async () => {
    receiver.answer = () => 200;
    const threadId = `hook-failed-${backend}`;
    await start(threadId, { agentId: "default", input: { runId: "f1", messages: [{ id: "u1", role: "user", content: DEMO_FAILURE_PROMPT }] } });
    const record = await settled(threadId, "f1");
    expect(record.status).toBe("failed");
    expect(record.webhook).toMatchObject({ url: `${receiver.url}/server`, delivered: true });
    const hook = hooksTo("/server").find((h) => JSON.parse(h.body).threadId === threadId)!;
    const body = JSON.parse(hook.body);
    expect(body).toMatchObject({ threadId, runId: "f1", status: "failed", error: { code: expect.any(String), message: expect.any(String) } });
    expect(body.error).toEqual(record.error);
  });

  it("signs a tenant's deliveries with the tenant's own secret", async () => {
    receiver.answer = () => 200;
    const threadId = `hook-acme-${backend}`;
    await start(threadId, { agentId: "default", input: { runId: "a1", messages: [{ id: "u1", role: "user", content: "hi" }] }, webhook: { url: `${receiver.url}/acme` } }, "key-acme");
    await settled(threadId, "a1", "key-acme");
    const hook = hooksTo("/acme")[0]!;
    expect(verifyWebhookSignature(ACME_SECRET, hook.headers["x-threadline-signature"] as string, hook.body)).toBe(true);
    expect(verifyWebhookSignature(SECRET, hook.headers["x-threadline-signature"] as string, hook.body)).toBe(false);
    // The other tenant does not see the run, nor its record.
    expect((await status(threadId, "a1")).status).toBe(404);
    // A run of the tenant that names no URL goes to the tenant's (WEBHOOK_TENANT_URLS), not the server's.
    await start(threadId, { agentId: "default", input: { runId: "a2", messages: [{ id: "u2", role: "user", content: "again" }] } }, "key-acme");
    expect((await settled(threadId, "a2", "key-acme")).webhook.url).toBe(`${receiver.url}/acme-default`);
    expect(verifyWebhookSignature(ACME_SECRET, hooksTo("/acme-default")[0]!.headers["x-threadline-signature"] as string, hooksTo("/acme-default")[0]!.body)).toBe(true);
  });

  it("gives a delivery up after WEBHOOK_MAX_ATTEMPTS, in the run's record and the metrics", async () => {
    receiver.answer = (h) => (h.path === "/down" ? 503 : 200);
    const gaveUpBefore = await attempts("gave_up");
    const threadId = `hook-down-${backend}`;
    await start(threadId, { agentId: "default", input: { runId: "d1", messages: [{ id: "u1", role: "user", content: "hi" }] }, webhook: { url: `${receiver.url}/down` } });
    const record = await settled(threadId, "d1");
    expect(record.webhook).toMatchObject({ attempts: 3, delivered: false, lastStatus: 503, lastError: expect.stringContaining("503") });
    expect(record.webhook.gaveUpAt).toEqual(expect.any(String));
    expect(hooksTo("/down")).toHaveLength(3);
    expect(await attempts("gave_up")).toBe(gaveUpBefore + 1);
  });
});
