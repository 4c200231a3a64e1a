/**
 * The store contract for the compacted form (migration 0009): an append's merged stretches commit
 * with it, a stretch whose events the log does not hold is not written, readCompacted pages them,
 * read's `before` bounds a page, and retention deletes a run's stretches with its deltas.
 */
import { describe, expect, it } from "vitest";
import { DeltaMerger } from "../../protocol/merged-deltas.ts";
import type { StoredEvent } from "../../protocol/events.ts";
import type { ContractContext } from "./contract.ts";
import { ev, randomId } from "./fixtures.ts";

export function compactedContract(ctx: ContractContext): void {
  describe("compacted deltas", () => {
    it("commits an append's stretches with it, pages them, and retention deletes them with the deltas", async () => {
      const store = ctx.store();
      const threadId = randomId("t-compacted");
      await store.ensureThread(threadId, "agent");
      const deltas = Array.from({ length: 40 }, (_, i) => ev.delta("r1", `d${i} `));
      const written = await store.append(threadId, [ev.threadCreated(), ev.runAccepted("r1"), ev.started("r1"), ev.textStarted("r1"), ...deltas, ev.textEnded("r1")]);
      const merger = new DeltaMerger(1_000_000, 2);
      for (const e of written) merger.push(e);
      const merged = merger.take();
      expect(merged).toHaveLength(1);
      // A stretch past the log's end (events not committed) is not written.
      const ahead = { fromSeq: 1_000, event: { ...merged[0]!.event, seq: 1_001 } as StoredEvent };
      await store.append(threadId, [ev.completed("r1")], { compacted: [...merged, ahead] });
      const rows = await store.readCompacted(threadId, 0, 10);
      expect(rows).toEqual(merged);
      expect(await store.readCompacted(threadId, merged[0]!.event.seq, 10)).toEqual([]);
      expect(await store.readCompacted(threadId, 0, 0)).toEqual([]);
      // read's `before`: the events strictly between.
      const first = merged[0]!.fromSeq;
      expect((await store.read(threadId, { after: 0, before: first })).map((e) => e.seq)).toEqual(written.slice(0, first - 1).map((e) => e.seq));
      expect(await store.read(threadId, { after: first - 1, before: first })).toEqual([]);
      // Retention: the run's deltas and its stretches go together.
      await store.compact(0);
      expect(await store.readCompacted(threadId, 0, 10)).toEqual([]);
    });
  });
}
