/**
 * untilAborted: the engine's bound on a model stream after the run's abort. A Model that ignores
 * its signal (or an SDK that never ends an aborted stream) must not hold the run: the stream
 * ends at the abort with its reason, and the model's iterator is told to return.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { untilAborted } from "../../server/models/until-aborted.ts";

/** Yields `parts`, then waits for ever (until returned): a stream that never ends by itself. */
function deaf<T>(parts: T[]) {
  const seen = { returned: false, pulls: 0 };
  const iterable: AsyncIterable<T> = {
    [Symbol.asyncIterator]() {
      let i = 0;
      return {
        next: () => {
          seen.pulls++;
          return i < parts.length ? Promise.resolve({ value: parts[i++]!, done: false }) : new Promise<IteratorResult<T>>(() => {});
        },
        return: () => {
          seen.returned = true;
          return Promise.resolve({ value: undefined, done: true });
        },
      };
    },
  };
  return { iterable, seen };
}

async function* finite<T>(parts: T[]) {
  for (const p of parts) yield p;
}

describe("untilAborted", () => {
  it("passes every part of a stream that ends, in order, when nothing aborts", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string()), async (parts) => {
        const out: string[] = [];
        for await (const p of untilAborted(finite(parts), new AbortController().signal)) out.push(p);
        expect(out).toEqual(parts);
      }),
    );
  });

  it("ends a stream that never ends at the abort, with the abort's reason, and returns the model's iterator", async () => {
    const { iterable, seen } = deaf(["a", "b"]);
    const controller = new AbortController();
    const out: string[] = [];
    const consumed = (async () => {
      for await (const p of untilAborted(iterable, controller.signal)) {
        out.push(p);
        if (out.length === 2) setImmediate(() => controller.abort(new Error("lease_lost")));
      }
    })();
    await expect(consumed).rejects.toThrow("lease_lost");
    expect(out).toEqual(["a", "b"]);
    expect(seen.returned).toBe(true);
  });

  it("throws at once for a signal already aborted, without pulling a part", async () => {
    const { iterable, seen } = deaf(["a"]);
    const controller = new AbortController();
    controller.abort(new Error("cancelled"));
    const pulled: string[] = [];
    await expect(
      (async () => {
        for await (const p of untilAborted(iterable, controller.signal)) pulled.push(p);
      })(),
    ).rejects.toThrow("cancelled");
    expect(pulled).toEqual([]);
    expect(seen.returned).toBe(true);
  });

  it("leaves no unhandled rejection when the pull the abort overtook fails later", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (err: unknown) => unhandled.push(err);
    process.on("unhandledRejection", onUnhandled);
    try {
      let failLater!: (err: Error) => void;
      const iterable: AsyncIterable<string> = {
        [Symbol.asyncIterator]: () => ({
          next: () => new Promise<IteratorResult<string>>((_, reject) => (failLater = reject)),
        }),
      };
      const controller = new AbortController();
      const consumed = (async () => {
        for await (const _ of untilAborted(iterable, controller.signal)) {
          // nothing arrives
        }
      })();
      controller.abort(new Error("shutdown"));
      await expect(consumed).rejects.toThrow("shutdown");
      failLater(new Error("socket closed"));
      await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});
