/** Contract, part 4: checkpoints, written in the commit of the append that carries them. */
import { describe, expect, it } from "vitest";
import type { FoldState } from "../../protocol/checkpoint.ts";
import { Reconstructor } from "../../protocol/reconstruct.ts";
import { LeaseLostError } from "../../server/store/errors.ts";
import type { ContractContext } from "./contract.ts";
import { ev, randomId } from "./fixtures.ts";

export function checkpointsContract(ctx: ContractContext): void {
  describe("checkpoints", () => {
    const foldOf = async (threadId: string): Promise<FoldState> => {
      const fold = new Reconstructor();
      for (const e of await ctx.store().read(threadId)) fold.push(e);
      return fold.toState();
    };

    it("stores the fold as of the thread's last event in the commit, and a newer one wins", async () => {
      const store = ctx.store();
      const threadId = randomId("t");
      await store.ensureThread(threadId, "agent");
      expect(await store.readCheckpoint(threadId)).toBeNull();
      await store.append(threadId, [ev.runAccepted("r1"), ev.started("r1"), ev.userMessage("hello", "r1")]);
      const atEnd = await foldOf(threadId);
      const [terminal] = await store.append(threadId, [ev.completed("r1")], { checkpoint: atEnd });
      const cp = await store.readCheckpoint(threadId);
      expect(cp?.seq).toBe(terminal!.seq);
      expect(cp?.fold.messages).toEqual(atEnd.messages);
      expect(cp?.fold).toMatchObject({ lastSeq: terminal!.seq, lastAt: terminal!.at });

      // A later run's end replaces it; the fold resumed from it equals the fold of the whole log.
      await store.append(threadId, [ev.runAccepted("r2"), ev.started("r2"), ev.userMessage("again", "r2")]);
      const [end2] = await store.append(threadId, [ev.completed("r2")], { checkpoint: await foldOf(threadId) });
      const cp2 = await store.readCheckpoint(threadId);
      expect(cp2?.seq).toBe(end2!.seq);
      const resumed = Reconstructor.from(cp2!);
      expect(resumed.snapshot().messages.map((m) => m.id)).toEqual((await foldOf(threadId)).messages.map((m) => m.id));
    });

    it("is not written when its append is refused, and goes with its thread", async () => {
      const store = ctx.store();
      const threadId = randomId("t");
      await store.ensureThread(threadId, "agent");
      expect(await store.acquireLease(threadId, "owner", 60_000)).toBe(true);
      await store.append(threadId, [ev.runAccepted("r1"), ev.started("r1")], { leaseOwner: "owner" });
      await expect(
        store.append(threadId, [ev.completed("r1")], { leaseOwner: "someone-else", checkpoint: await foldOf(threadId) }),
      ).rejects.toBeInstanceOf(LeaseLostError);
      expect(await store.readCheckpoint(threadId)).toBeNull();
      await store.append(threadId, [ev.completed("r1")], { leaseOwner: "owner", checkpoint: await foldOf(threadId) });
      expect(await store.readCheckpoint(threadId)).not.toBeNull();
      expect(await store.deleteThread(threadId)).toBe("deleted");
      expect(await store.readCheckpoint(threadId)).toBeNull();
    });

    it("admissionView: the row, whether the run id is taken, and the checkpoint, in one read", async () => {
      const store = ctx.store();
      const threadId = randomId("t");
      expect(await store.admissionView(threadId, "r1")).toEqual({ thread: null, runTaken: false, checkpoint: null });
      await store.ensureThread(threadId, "agent", "tenant-a");
      await store.append(threadId, [ev.runAccepted("r1"), ev.started("r1"), ev.userMessage("hello", "r1")]);
      const mid = await store.admissionView(threadId, "r1");
      expect(mid.thread).toEqual(await store.getThread(threadId));
      expect(mid).toMatchObject({ runTaken: true, checkpoint: null });
      expect((await store.admissionView(threadId, "r2")).runTaken).toBe(false);
      await store.append(threadId, [ev.completed("r1")], { checkpoint: await foldOf(threadId) });
      const done = await store.admissionView(threadId, "r2");
      expect(done.thread).toMatchObject({ tenantId: "tenant-a", status: "COMPLETED" });
      expect(done.checkpoint).toEqual(await store.readCheckpoint(threadId));
      expect(done.checkpoint!.seq).toBe(done.thread!.lastSeq);
    });
  });
}
