/**
 * The shared reload snapshots (server/http/snapshot-cache.ts): one build per key however many
 * streams wait for it, the same bytes for all of them, nothing kept once the last stream lets go,
 * and at most maxEntries shared at once (beyond it a reload builds its own bytes, unshared).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SnapshotCache, type EncodedFrames, type SnapshotLease } from "../../server/http/snapshot-cache.ts";
import { createMetrics } from "../../server/metrics.ts";

const bytesOf = (key: string): EncodedFrames => ({ bytes: new TextEncoder().encode(`bytes of ${key}`), frames: 4 });

async function gaugeValue(metrics: ReturnType<typeof createMetrics>): Promise<number> {
  return (await metrics.snapshotCacheBytes.get()).values[0]?.value ?? 0;
}

describe("SnapshotCache", () => {
  it("builds once for concurrent reloads of one key, gives them the same bytes, and drops them with the last release", async () => {
    const metrics = createMetrics();
    const cache = new SnapshotCache({ metrics });
    let builds = 0;
    let finish!: (s: EncodedFrames) => void;
    const build = () => {
      builds++;
      return new Promise<EncodedFrames>((r) => (finish = r));
    };
    const waiting = [cache.acquire("k", build), cache.acquire("k", build), cache.acquire("k", build)];
    finish(bytesOf("k"));
    const leases = await Promise.all(waiting);
    expect(builds).toBe(1);
    expect(leases.every((l) => l.snapshot.bytes === leases[0]!.snapshot.bytes)).toBe(true);
    expect(cache.bytes).toBe(leases[0]!.snapshot.bytes.byteLength);
    expect(await gaugeValue(metrics)).toBe(cache.bytes);
    leases[0]!.release();
    leases[0]!.release(); // idempotent: one stream cannot release another's hold
    leases[1]!.release();
    expect(cache.size).toBe(1);
    leases[2]!.release();
    expect(cache.size).toBe(0);
    expect(await gaugeValue(metrics)).toBe(0);
    // Nobody holds it: the next reload builds again.
    (
      await cache.acquire("k", async () => {
        builds++;
        return bytesOf("k");
      })
    ).release();
    expect(builds).toBe(2);
  });

  it("at the bound, a reload of another key gets its own bytes, unshared and not kept", async () => {
    const cache = new SnapshotCache({ maxEntries: 1 });
    let builds = 0;
    const build = (key: string) => async () => {
      builds++;
      return bytesOf(key);
    };
    const held = await cache.acquire("a", build("a"));
    const first = await cache.acquire("b", build("b"));
    const second = await cache.acquire("b", build("b"));
    expect(builds).toBe(3); // "b" twice: not shared while the cache is full
    expect(first.snapshot.bytes).not.toBe(second.snapshot.bytes);
    expect(cache.size).toBe(1);
    expect(cache.bytes).toBe(held.snapshot.bytes.byteLength);
    first.release();
    second.release();
    held.release();
    expect(cache.size).toBe(0);
    // Room again: "b" is shared now.
    const [x, y] = await Promise.all([cache.acquire("b", build("b")), cache.acquire("b", build("b"))]);
    expect(x.snapshot.bytes).toBe(y.snapshot.bytes);
    x.release();
    y.release();
  });

  it("a failed build fails every reload waiting for it, keeps nothing, and the next reload builds again", async () => {
    const cache = new SnapshotCache();
    const failure = new Error("the store is down");
    const build = () => Promise.reject(failure);
    await expect(Promise.all([cache.acquire("k", build), cache.acquire("k", build)])).rejects.toBe(failure);
    expect(cache.size).toBe(0);
    const lease = await cache.acquire("k", async () => bytesOf("k"));
    expect(cache.size).toBe(1);
    lease.release();
  });

  it("every stream gone while the build runs: the built bytes are not kept", async () => {
    const metrics = createMetrics();
    const cache = new SnapshotCache({ metrics });
    let finish!: (s: EncodedFrames) => void;
    const pending = cache.acquire("k", () => new Promise<EncodedFrames>((r) => (finish = r)));
    finish(bytesOf("k"));
    (await pending).release();
    expect(cache.size).toBe(0);
    expect(await gaugeValue(metrics)).toBe(0);
  });

  it("under any interleaving of acquires and releases: at most maxEntries held, never more than the keys held, the gauge is their bytes, nothing left at the end", async () => {
    const keys = ["a", "b", "c", "d"];
    const op = fc.oneof(
      fc.record({ kind: fc.constant("acquire" as const), key: fc.constantFrom(...keys) }),
      fc.record({ kind: fc.constant("release" as const), index: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.array(op, { maxLength: 40 }), async (maxEntries, ops) => {
        const metrics = createMetrics();
        const cache = new SnapshotCache({ maxEntries, metrics });
        const open: { key: string; lease: SnapshotLease }[] = [];
        for (const o of ops) {
          if (o.kind === "acquire") {
            open.push({ key: o.key, lease: await cache.acquire(o.key, async () => bytesOf(o.key)) });
          } else if (open.length > 0) {
            open.splice(o.index % open.length, 1)[0]!.lease.release();
          }
          expect(cache.size).toBeLessThanOrEqual(maxEntries);
          expect(await gaugeValue(metrics)).toBe(cache.bytes);
          const held = new Set(open.map((l) => l.key));
          expect(cache.size).toBeLessThanOrEqual(held.size);
        }
        for (const l of open) l.lease.release();
        expect(cache.size).toBe(0);
        expect(await gaugeValue(metrics)).toBe(0);
      }),
    );
  });
});
