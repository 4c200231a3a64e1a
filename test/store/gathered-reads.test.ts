import { describe, expect, it } from "vitest";
import { gatheredReads } from "../../server/store/gathered-reads.ts";

/** A read that records the keys of each statement and answers when told to. */
function recorder() {
  const statements: number[][] = [];
  const waiting: (() => void)[] = [];
  const read = (keys: readonly number[]) => {
    statements.push([...keys]);
    return new Promise<string[]>((resolve) => waiting.push(() => resolve(keys.map((k) => `v${k}`))));
  };
  const answerNext = async () => {
    while (waiting.length === 0) await new Promise((r) => setImmediate(r));
    waiting.shift()!();
  };
  return { statements, read, answerNext };
}

describe("gatheredReads", () => {
  it("sends the reads of one tick together, and the reads asked meanwhile in the next statement", async () => {
    const r = recorder();
    const reads = gatheredReads(r.read, 500);
    const first = [1, 2, 3].map((k) => reads.read(k));
    await r.answerNext();
    expect(await Promise.all(first)).toEqual(["v1", "v2", "v3"]);
    const late = [4, 5].map((k) => reads.read(k));
    await new Promise((res) => setImmediate(res));
    const later = reads.read(6); // while 4 and 5 are in flight: waits, then goes alone
    await r.answerNext();
    await r.answerNext();
    expect(await Promise.all([...late, later])).toEqual(["v4", "v5", "v6"]);
    expect(r.statements).toEqual([[1, 2, 3], [4, 5], [6]]);
  });

  it("puts at most `max` reads in one statement", async () => {
    const r = recorder();
    const reads = gatheredReads(r.read, 2);
    const all = [1, 2, 3, 4, 5].map((k) => reads.read(k));
    for (let i = 0; i < 3; i++) await r.answerNext();
    expect(await Promise.all(all)).toEqual(["v1", "v2", "v3", "v4", "v5"]);
    expect(r.statements).toEqual([[1, 2], [3, 4], [5]]);
  });

  it("fails every read of a failed statement, and only those", async () => {
    let calls = 0;
    const reads = gatheredReads(async (keys: readonly number[]) => {
      calls++;
      if (calls === 1) throw new Error("database gone");
      return keys.map((k) => k * 10);
    }, 500);
    const failed = [1, 2].map((k) => reads.read(k));
    await expect(Promise.all(failed)).rejects.toThrow("database gone");
    await expect(failed[1]).rejects.toThrow("database gone");
    expect(await reads.read(3)).toBe(30);
  });
});
