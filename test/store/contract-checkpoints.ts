/** Contract, part 4: checkpoints, written in the commit of the append that carries them. */
import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { FoldState } from "../../protocol/checkpoint.ts";
import { Reconstructor } from "../../protocol/reconstruct.ts";
import type { Db } from "../../server/store/db.ts";
import { LeaseLostError } from "../../server/store/errors.ts";
import { LOG_PAGE_BYTES } from "../../server/store/live.ts";
import type { EventStore } from "../../server/store/types.ts";
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

    /** A run of user messages and its end with the checkpoint: a patch on the one before it when `patch`. */
    const run = async (store: EventStore, threadId: string, runId: string, contents: string | string[], patch: boolean) => {
      const messages = [contents].flat().map((c) => ev.userMessage(c, runId));
      await store.append(threadId, [ev.runAccepted(runId), ev.started(runId), ...messages]);
      const base = patch ? ((await store.readCheckpoint(threadId)) ?? undefined) : undefined;
      const fold = await foldOf(threadId);
      const [end] = await store.append(threadId, [ev.completed(runId)], { checkpoint: fold, ...(base && { checkpointBase: base }) });
      return { seq: end!.seq, fold };
    };
    /** Messages' contents as digests: a failed comparison of megabytes prints a few lines. */
    const contentsOf = (fold: FoldState) => fold.messages.map((m) => createHash("sha256").update((m as { content: string }).content).digest("hex").slice(0, 12));
    /** Base64 of random bytes (storable, incompressible), `mib` MiB of it. */
    const big = (mib: number) => randomBytes(Math.floor((mib * 1024 * 1024 * 3) / 4)).toString("base64");

    /** Records the checkpoint parts' content statements of a store (the ones that read `p.part`). */
    const partReads = (found: { bytes: number[] }[], before?: () => Promise<void>) => (db: Db): Db => ({
      kind: db.kind,
      async query<R>(text: string, params?: readonly unknown[], name?: string) {
        if (!text.includes("p.seq = any(")) return db.query<R>(text, params, name);
        await before?.();
        const result = await db.query<R>(text, params, name);
        found.push({ bytes: result.rows.map((r) => JSON.stringify((r as { part: unknown }).part).length) });
        return result;
      },
      batch: (statements) => db.batch(statements),
      transaction: (fn) => db.transaction(fn),
      close: () => db.close(),
    });

    it("a checkpoint larger than one statement's answer is read a few MiB at a time and folds back whole", async () => {
      const found: { bytes: number[] }[] = [];
      const store = ctx.open(ctx.schema(), { instrument: partReads(found) });
      const threadId = randomId("t");
      await store.ensureThread(threadId, "agent");
      // A full fold of 3 MiB, then three patches of 0.9 MiB (together still smaller than it): the
      // full fold and the first patch fit in one statement's bytes, the next two in another.
      const contents = [big(1.5), big(1.5), big(0.9), big(0.9), big(0.9)];
      let last = await run(store, threadId, "r1", contents.slice(0, 2), false);
      for (let r = 2; r < contents.length; r++) last = await run(store, threadId, `r${r}`, contents[r]!, true);
      found.length = 0;
      const cp = await store.readCheckpoint(threadId);
      expect(cp!.seq).toBe(last.seq);
      expect(contentsOf(cp!.fold)).toEqual(contentsOf(last.fold));
      expect(contentsOf(cp!.fold)).toHaveLength(contents.length);
      const { messages: _m, ...rest } = cp!.fold;
      const { messages: _e, ...expected } = last.fold;
      expect(rest).toEqual({ ...expected, lastSeq: last.seq, lastAt: rest.lastAt });
      expect(cp!.parts!.patchBytes).toBeGreaterThan(0);
      // More than one statement, and none answering more than LOG_PAGE_BYTES besides its first part.
      expect(found.length).toBeGreaterThan(1);
      for (const { bytes } of found) if (bytes.length > 1) expect(bytes.reduce((n, b) => n + b, 0)).toBeLessThanOrEqual(LOG_PAGE_BYTES);
      expect(await store.checkpointSeq(threadId)).toBe(cp!.seq);
    });

    it("a read overtaken by a newer full fold (which deletes the parts it listed) reads again and answers the newer one", async () => {
      const threadId = randomId("t");
      const writer = ctx.store();
      await writer.ensureThread(threadId, "agent");
      await run(writer, threadId, "r1", "first", false);
      await run(writer, threadId, "r2", "second", true);
      let newer = 0;
      const found: { bytes: number[] }[] = [];
      // Between the list of parts and their content, another run ends with a full fold.
      const reader = ctx.open(ctx.schema(), {
        instrument: partReads(found, async () => {
          if (newer === 0) newer = (await run(writer, threadId, "r3", "third", false)).seq;
        }),
      });
      const cp = await reader.readCheckpoint(threadId);
      expect(cp!.seq).toBe(newer);
      expect(cp!.fold.messages.map((m) => (m as { content: string }).content)).toEqual(["first", "second", "third"]);
      expect(found.length).toBe(2); // the overtaken read, then the one that answered
    });

    it("checkpointSeq: null without a checkpoint, else the seq readCheckpoint answers", async () => {
      const store = ctx.store();
      const threadId = randomId("t");
      await store.ensureThread(threadId, "agent");
      expect(await store.checkpointSeq(threadId)).toBeNull();
      const first = await run(store, threadId, "r1", "hello", false);
      await run(store, threadId, "r2", "again", true);
      const cp = await store.readCheckpoint(threadId);
      expect(cp!.seq).toBeGreaterThan(first.seq);
      expect(await store.checkpointSeq(threadId)).toBe(cp!.seq);
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

    it("admissionView of a checkpoint larger than its statement carries: the same checkpoint, read after it by the statements of parts", async () => {
      const found: { bytes: number[] }[] = [];
      const store = ctx.open(ctx.schema(), { instrument: partReads(found) });
      const threadId = randomId("t");
      await store.ensureThread(threadId, "agent");
      const small = randomId("t");
      await store.ensureThread(small, "agent");
      await run(store, small, "r1", "hello", false);
      // 1 MiB of parts, a full fold and a patch: more than ADMISSION_CHECKPOINT_INLINE_BYTES.
      await run(store, threadId, "r1", big(0.5), false);
      const last = await run(store, threadId, "r2", big(0.5), true);
      found.length = 0;
      // The small thread's checkpoint comes in the view's own statement: no statement of parts after it.
      const smallView = await store.admissionView(small, "r2");
      expect(smallView.checkpoint!.fold.messages).toHaveLength(1);
      expect(found).toEqual([]);
      const view = await store.admissionView(threadId, "r3");
      expect(view.thread!.lastSeq).toBe(last.seq);
      expect(view.checkpoint!.seq).toBe(last.seq);
      expect(contentsOf(view.checkpoint!.fold)).toEqual(contentsOf(last.fold));
      expect(view.checkpoint).toEqual(await store.readCheckpoint(threadId));
      // Read after the view's statement, by the statements of parts (one here: 1 MiB fits in one).
      const ofView = found.splice(0);
      expect(ofView.length).toBeGreaterThan(0);
      for (const { bytes } of ofView) if (bytes.length > 1) expect(bytes.reduce((n, b) => n + b, 0)).toBeLessThanOrEqual(LOG_PAGE_BYTES);
      expect(smallView.checkpoint).toEqual(await store.readCheckpoint(small));
    });
  });
}
