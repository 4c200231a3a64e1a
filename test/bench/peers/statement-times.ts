/**
 * BENCH_STATEMENT_TIMES=1: a Db (server/store/db.ts) that times every statement a system sends,
 * the statements of a flush one by one, and prints them by total time when the system stops. A
 * diagnostic for where the database time of a scenario goes (in process, on PGlite, that time is
 * the server's own CPU); it costs a transaction per flush where Postgres pipelines one, so its
 * figures are for reading shares, not for the table.
 */
import type { Db, Row } from "../../../server/store/db.ts";

export interface StatementTimes {
  instrument: (db: Db) => Db;
  report(): string;
}

export function statementTimes(): StatementTimes {
  const times = new Map<string, { n: number; ms: number; rows: number }>();
  const note = (text: string, ms: number, rows = 0) => {
    const key = text.replace(/\s+/g, " ").slice(0, 60);
    const t = times.get(key) ?? { n: 0, ms: 0, rows: 0 };
    t.n++;
    t.ms += ms;
    t.rows += rows;
    times.set(key, t);
  };
  return {
    instrument: (db) => ({
      kind: db.kind,
      async query<R = Row>(text: string, params?: readonly unknown[], name?: string) {
        const t = performance.now();
        const r = await db.query<R>(text, params, name);
        note(text, performance.now() - t, r.rows.length);
        return r;
      },
      transaction: (fn) => db.transaction(fn),
      close: () => db.close(),
      async batch(statements) {
        const t0 = performance.now();
        const out = await db.transaction(async (tx) => {
          const rows: Row[][] = [];
          for (const st of statements) {
            const t = performance.now();
            rows.push((await tx.query(st.text, st.params)).rows);
            note(`batch: ${st.text}`, performance.now() - t, (st.params[5] as unknown[] | undefined)?.length ?? 0);
          }
          return rows;
        });
        note("batch (whole transaction)", performance.now() - t0);
        return out;
      },
    }),
    report: () =>
      [...times]
        .sort((a, b) => b[1].ms - a[1].ms)
        .map(([k, v]) => `${v.ms.toFixed(0).padStart(8)} ms ${String(v.n).padStart(7)}x ${(v.ms / v.n).toFixed(2).padStart(7)} ms/each ${String(v.rows).padStart(8)} rows  ${k}`)
        .join("\n"),
  };
}
