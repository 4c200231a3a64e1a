/**
 * The SQL guards are rendered from protocol/lifecycle.ts (server/store/sql/lifecycle.ts): the
 * lists match the constants, and the cancel guard, evaluated by the database itself for every
 * pair of statuses, agrees with the protocol's cancelApplies.
 */
import { testPglite } from "../support/pglite.ts";
import { afterAll, describe, expect, it } from "vitest";
import {
  ACTIVE_STATUSES,
  cancelApplies,
  isSettled,
  SETTLED_RUN_STATUSES,
  THREAD_STATUSES,
} from "../../protocol/lifecycle.ts";
import {
  ACTIVE_THREAD_STATUSES_SQL,
  ignoredCancelSql,
  SETTLED_RUN_STATUSES_SQL,
  settlesSql,
  sqlTextList,
} from "../../server/store/sql/lifecycle.ts";

describe("sqlTextList", () => {
  it("renders the protocol's constants as quoted literals, in order", () => {
    expect(ACTIVE_THREAD_STATUSES_SQL).toBe(`(${ACTIVE_STATUSES.map((s) => `'${s}'`).join(", ")})`);
    expect(SETTLED_RUN_STATUSES_SQL).toBe(`(${SETTLED_RUN_STATUSES.map((s) => `'${s}'`).join(", ")})`);
  });

  it("refuses what is not a plain identifier instead of escaping it, and an empty list", () => {
    expect(() => sqlTextList(["A", "B'); drop table x; --"])).toThrow(/not a plain identifier/);
    expect(() => sqlTextList([])).toThrow(/empty list/);
  });
});

describe("the guards, as the database evaluates them", () => {
  const db = testPglite();
  afterAll(() => db.close());

  it("ignoredCancel and settles agree with the protocol for every (batch status, guard, row status)", async () => {
    const batch = THREAD_STATUSES.flatMap((status) => [true, false].map((guard) => ({ status, guard })));
    const { rows } = await db.query<{ planned: string; guard: boolean; current: string; ignored: boolean; settles: boolean }>(
      `select c.status as planned, c.cancel_guard as guard, t.status as current,
              ${ignoredCancelSql("c", "t")} as ignored,
              ${settlesSql("c", "t")} as settles
       from unnest($1::text[], $2::boolean[]) as c(status, cancel_guard)
       cross join unnest($3::text[]) as t(status)`,
      [batch.map((b) => b.status), batch.map((b) => b.guard), [...THREAD_STATUSES]],
    );
    expect(rows).toHaveLength(batch.length * THREAD_STATUSES.length);
    for (const r of rows) {
      const planned = r.planned as (typeof THREAD_STATUSES)[number];
      const current = r.current as (typeof THREAD_STATUSES)[number];
      const ignored = r.guard && !cancelApplies(planned, current);
      expect({ ...r, ignored: r.ignored }).toEqual({ ...r, ignored });
      expect({ ...r, settles: r.settles }).toEqual({ ...r, settles: isSettled(planned) && !ignored });
    }
  });

  it("the active list selects exactly the active statuses", async () => {
    const { rows } = await db.query<{ s: string }>(
      `select s from unnest($1::text[]) as s where s in ${ACTIVE_THREAD_STATUSES_SQL}`,
      [[...THREAD_STATUSES]],
    );
    expect(rows.map((r) => r.s)).toEqual([...ACTIVE_STATUSES]);
  });
});
