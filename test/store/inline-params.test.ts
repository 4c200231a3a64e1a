/**
 * inline-params.ts: a statement with its values written in as literals means what it meant with
 * parameters, for every kind of value the store sends, on a real database (PGlite): each value
 * comes back the same whichever way it was sent, and none ends its literal.
 */
import { afterAll, describe, expect, it } from "vitest";
import { inlineParams } from "../../server/store/inline-params.ts";
import { testPglite } from "../support/pglite.ts";

describe("inlineParams", () => {
  const db = testPglite();
  afterAll(() => db.close());

  const awkward = ["plain", "it's", "back\\slash", 'a "quoted" word', "$1 and $2", "'); drop table x; --", "{braces,comma}", "NULL", "", "naïve 😀"];

  it("gives back every value as its parameter does", async () => {
    const text = "select $1::text as t, $2::text[] as a, $3::int as i, $4::float8 as f, $5::boolean as b, $6::jsonb as j, $7::bigint[] as n, $8::text as z";
    for (const v of awkward) {
      const params = [v, [v, null, v], 42, 1.5, true, JSON.stringify({ v }), [1, null, 3], null];
      const bound = (await db.query(text, params)).rows;
      const inlined = (await db.query(inlineParams(text, params))).rows;
      expect(inlined).toEqual(bound);
      expect(inlined[0]).toMatchObject({ t: v, a: [v, null, v], z: null });
    }
  });

  it("replaces each $n once, so a value holding $2 is not replaced again, and leaves $n beyond the parameters", () => {
    expect(inlineParams("select $1::text, $2::text, $3", ["$2", "x"])).toBe("select '$2'::text, 'x'::text, $3");
  });
});
