/**
 * A thread's checkpoints take bytes in proportion to its conversation, not to runs ×
 * conversation: after 40 runs of 1,000 tokens, the checkpoint tables (dead rows included:
 * autovacuum is off for them here, as when it has not come round yet) hold at most ~1.2 × twice
 * what they held after 20. Storing each run's checkpoint whole, as the release before patches did,
 * is measured too: its bytes grow with the square of the runs, which the same bound refuses.
 * Structural: bytes, not time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Reconstructor, reconstruct } from "../../protocol/reconstruct.ts";
import type { EventStore } from "../../server/store/types.ts";
import { CHECKPOINT_TABLES, endedRun, tableBytesSql } from "../support/checkpoint-runs.ts";
import { pgliteBackend, postgresBackend, type StoreBackend } from "./backends.ts";
import { randomId, randomSchema } from "./fixtures.ts";

const TOKENS = 1_000;
const url = process.env.DATABASE_URL;
const backends: StoreBackend[] = [pgliteBackend(), ...(url ? [postgresBackend(url)] : [])];

describe.each(backends)("checkpoint bytes on $name", (backend) => {
  const schema = randomSchema();
  let store: EventStore;
  beforeAll(async () => {
    store = backend.open(schema);
    await store.migrate();
    for (const table of ["checkpoint_parts", "checkpoints"]) {
      await backend.sql(`alter table "${schema}".${table} set (autovacuum_enabled = false, toast.autovacuum_enabled = false)`);
    }
  });
  afterAll(async () => {
    await store.close();
    await backend.dropSchema(schema);
    await backend.dispose();
  });

  const bytes = async (): Promise<number> => {
    const { text, params } = tableBytesSql(schema, CHECKPOINT_TABLES);
    const [row] = await backend.sql<{ bytes: number }>(text, params);
    return Number(row!.bytes);
  };

  /** The tables' bytes after 20 and after 40 runs of a thread of their own. */
  async function growth(patches: boolean): Promise<{ at20: number; at40: number }> {
    const before = await bytes();
    const threadId = randomId("t");
    await store.ensureThread(threadId, "agent");
    for (let i = 0; i < 20; i++) await endedRun(store, threadId, TOKENS, { patches });
    const at20 = (await bytes()) - before;
    for (let i = 0; i < 20; i++) await endedRun(store, threadId, TOKENS, { patches });
    const at40 = (await bytes()) - before;
    // Whatever the checkpoint's form, folding from it gives the fold of the whole log.
    const thread = await store.getThread(threadId);
    const cp = await store.readCheckpoint(threadId);
    expect(cp?.seq).toBe(thread!.lastSeq);
    expect(Reconstructor.from(cp!).snapshot()).toEqual(reconstruct(await store.read(threadId)));
    return { at20, at40 };
  }

  it("grow linearly with the runs when a run's end writes a patch", { timeout: 120_000 }, async () => {
    const { at20, at40 } = await growth(true);
    expect(at40).toBeLessThanOrEqual(1.2 * 2 * at20);
  });

  it("grow with the square of the runs when every checkpoint is stored whole (the baseline)", { timeout: 120_000 }, async () => {
    // Run after the patched thread: the tables already exist, so `before` takes away their
    // first pages and this thread's rows are measured alone.
    const { at20, at40 } = await growth(false);
    expect(at40).toBeGreaterThan(1.2 * 2 * at20);
  });
});
