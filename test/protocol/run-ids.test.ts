/**
 * protocol/run-ids.ts: a resumed admission's log id maps back to the client's id and number, and
 * no id a client may name (server/http/ids.ts) is ever an admission id or collides with one.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { admissionOf, admissionRunId, wireRunId } from "../../protocol/run-ids.ts";
import { idProblem } from "../../server/http/ids.ts";

const clientId = fc.string({ minLength: 1, maxLength: 200, unit: "grapheme" }).filter((s) => idProblem(s) === null);

describe("run ids in the log and on the wire", () => {
  it("an admission id maps back to the client's id and its number", () => {
    fc.assert(
      fc.property(clientId, fc.integer({ min: 1, max: 1_000_000 }), (id, n) => {
        const logId = admissionRunId(id, n);
        expect(wireRunId(logId)).toBe(id);
        expect(admissionOf(logId)).toBe(n);
        expect(logId === id).toBe(n === 1);
      }),
    );
  });

  it("a client's id is its own first admission, and no later admission's id is one a client may name", () => {
    fc.assert(
      fc.property(clientId, fc.integer({ min: 2, max: 1_000_000 }), (id, n) => {
        expect(wireRunId(id)).toBe(id);
        expect(admissionOf(id)).toBe(1);
        expect(idProblem(admissionRunId(id, n))).not.toBeNull();
      }),
    );
  });
});
