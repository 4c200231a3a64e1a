/** Header directives of a migration, and the checks every list of migrations passes before anything runs. */
import { describe, expect, it } from "vitest";
import { planMigrations } from "../../server/store/migration-plan.ts";
import { loadMigrations } from "../../server/store/migrate.ts";

const plain = { id: 1, name: "init", sql: "create table a (x int);" };

describe("planMigrations", () => {
  it("reads no-transaction, no-statement-timeout and compatible-from from the leading comment block", () => {
    const [, long] = planMigrations([
      plain,
      { id: 2, name: "index", sql: "-- Why this index.\n-- threadline: no-transaction\n--threadline:  no-statement-timeout\n\n-- threadline: compatible-from 1\ncreate index concurrently b on a (x);" },
    ]);
    expect(long).toMatchObject({ transaction: false, statementTimeout: false, compatibleFrom: 1 });
    expect(planMigrations([plain])[0]).toEqual({ ...plain, transaction: true, statementTimeout: true });
  });

  it("refuses an unknown directive, one after the first statement, and a window that leaves out the release before it, naming the file", () => {
    expect(() => planMigrations([{ ...plain, sql: "-- threadline: no-transation\nselect 1;" }])).toThrow(/0001_init\.sql: unknown directive "-- threadline: no-transation"/);
    expect(() => planMigrations([{ ...plain, sql: "select 1;\n-- threadline: no-transaction\n" }])).toThrow(/0001_init\.sql: .* comes after the first statement/);
    expect(() => planMigrations([plain, { id: 2, name: "x", sql: "-- threadline: compatible-from 2\nselect 1;" }])).toThrow(
      /0002_x\.sql: compatible-from 2 must name a migration from 1 to 1: the release before this migration \(it knows 1\) still serves/,
    );
    expect(() => planMigrations([{ ...plain, id: 2 }])).toThrow(/without gaps; found 2 at position 1/);
  });

  it("0006 declares the window it leaves: code that knows 0003 or later", () => {
    expect(loadMigrations().find((m) => m.id === 6)).toMatchObject({ compatibleFrom: 3, transaction: true, statementTimeout: true });
  });
});
