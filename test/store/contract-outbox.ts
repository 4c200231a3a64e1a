/**
 * Contract: the webhook outbox is written in the commit of a run's end (docs/webhooks.md), on
 * both backends. An end that commits writes its row (the run's own URL, else its tenant's, else
 * the server's); an end the lease fence refuses writes none; a run with no URL anywhere writes
 * none; a second claim of a row already claimed gets nothing, and an outcome recorded for a stale
 * attempt changes nothing.
 */
import { describe, expect, it } from "vitest";
import type { WorkflowEvent } from "../../protocol/events.ts";
import { LeaseLostError } from "../../server/store/errors.ts";
import type { RunAdmission } from "../../server/store/types.ts";
import type { ContractContext } from "./contract.ts";
import { ev, randomId } from "./fixtures.ts";

const admit = (tenantId = "default"): RunAdmission => ({ agentId: "agent", tenantId, leaseOwner: "instance-a", ttlMs: 60_000, expectedLastSeq: 0 });

function firstEvents(runId: string, webhook?: string): WorkflowEvent[] {
  const accepted = ev.runAccepted(runId) as WorkflowEvent & { data: Record<string, unknown> };
  return [ev.threadCreated(), { ...accepted, data: { ...accepted.data, ...(webhook && { webhook: { url: webhook } }) } } as WorkflowEvent, ev.started(runId)];
}

export function outboxContract(ctx: ContractContext): void {
  describe("webhook outbox", () => {
    async function rows(threadId: string) {
      return ctx.backend.sql<{ run_id: string; url: string; status: string; tenant_id: string }>(
        `select run_id, url, status, tenant_id from "${ctx.schema()}".webhook_outbox where thread_id = $1`,
        [threadId],
      );
    }

    it("writes a run's delivery in the commit of its end, to the run's URL, else the tenant's, else the server's", async () => {
      const store = ctx.store();
      store.webhooks.setTargets({ serverUrl: "https://server.example/hook", tenantUrls: new Map([["acme", "https://acme.example/hook"]]) });
      try {
        const own = randomId("t");
        await store.append(own, firstEvents("r1", "https://run.example/hook"), { admit: admit() });
        expect(await rows(own)).toEqual([]);
        await store.append(own, [ev.completed("r1")], { leaseOwner: "instance-a" });
        expect(await rows(own)).toEqual([{ run_id: "r1", url: "https://run.example/hook", status: "finished", tenant_id: "default" }]);

        const tenant = randomId("t");
        await store.append(tenant, firstEvents("r1"), { admit: admit("acme") });
        await store.append(tenant, [{ type: "workflow.failed", data: { runId: "r1", error: { code: "X", message: "broke" } } }], { leaseOwner: "instance-a" });
        expect(await rows(tenant)).toEqual([{ run_id: "r1", url: "https://acme.example/hook", status: "failed", tenant_id: "acme" }]);

        const server = randomId("t");
        await store.append(server, firstEvents("r1"), { admit: admit() });
        await store.append(server, [{ type: "workflow.suspended", data: { runId: "r1", reason: "input", pendingToolCallIds: [] } }], { leaseOwner: "instance-a" });
        expect(await rows(server)).toEqual([{ run_id: "r1", url: "https://server.example/hook", status: "finished", tenant_id: "default" }]);
      } finally {
        store.webhooks.setTargets({ serverUrl: null, tenantUrls: new Map() });
      }
    });

    it("writes nothing for an end the lease fence refuses, nor for a run with no URL anywhere", async () => {
      const store = ctx.store();
      const fenced = randomId("t");
      await store.append(fenced, firstEvents("r1", "https://run.example/hook"), { admit: admit() });
      await expect(store.append(fenced, [ev.completed("r1")], { leaseOwner: "instance-b" })).rejects.toBeInstanceOf(LeaseLostError);
      expect(await rows(fenced)).toEqual([]);
      const none = randomId("t");
      await store.append(none, firstEvents("r1"), { admit: admit() });
      await store.append(none, [ev.completed("r1")], { leaseOwner: "instance-a" });
      expect(await rows(none)).toEqual([]);
    });

    it("claims a due row once, and fences each outcome by the attempt it claimed", async () => {
      const store = ctx.store();
      const threadId = randomId("t");
      await store.append(threadId, firstEvents("r1", "https://run.example/hook"), { admit: admit() });
      await store.append(threadId, [ev.completed("r1")], { leaseOwner: "instance-a" });
      const now = Date.now() + 1_000;
      expect((await store.webhooks.due(now, 1000)).map((d) => d.threadId)).toContain(threadId);
      const first = await store.webhooks.claim(threadId, "r1", now, 60_000);
      expect(first).toMatchObject({ threadId, runId: "r1", attempts: 1, status: "finished" });
      // Claimed: not due again until the claim expires, and a second claim gets nothing.
      expect(await store.webhooks.claim(threadId, "r1", now, 60_000)).toBeNull();
      expect((await store.webhooks.due(now, 1000)).map((d) => d.threadId)).not.toContain(threadId);
      // After the claim expired, another instance claims attempt 2; attempt 1's late outcome changes nothing.
      const second = await store.webhooks.claim(threadId, "r1", now + 61_000, 60_000);
      expect(second?.attempts).toBe(2);
      expect(await store.webhooks.delivered(threadId, "r1", 1, now, 200)).toBe(false);
      expect(await store.webhooks.delivered(threadId, "r1", 2, now + 61_500, 200)).toBe(true);
      expect(await store.webhooks.claim(threadId, "r1", now + 999_999, 60_000)).toBeNull();
      const status = await store.runStatus(threadId, "r1");
      expect(status?.webhook).toMatchObject({ attempts: 2, lastStatus: 200, nextAt: null });
    });
  });
}
