/**
 * Statement counting for tests: a Db (server/store/db.ts) that forwards to a real one and counts
 * what it sends, by kind, so a test can state how many statements a run costs. A transaction
 * counts its BEGIN and COMMIT too: each is a statement the database answers.
 */
import type { Db, Queryable, Tx } from "../../server/store/db.ts";

export interface StatementCounts {
  total: number;
  /** answers waited for: a statement alone is one, a pipelined batch (Db.batch) is one in all */
  roundTrips: number;
  /** reads of the event log (select ... from workflow_events) */
  logReads: number;
  /** lease heartbeats and recovery sweeps: they come with time, not with tokens */
  timed: number;
  transactions: number;
}

export function countingDb(db: Db): { db: Db; counts: StatementCounts; reset(): void } {
  const counts: StatementCounts = { total: 0, roundTrips: 0, logReads: 0, timed: 0, transactions: 0 };
  const note = (text: string, roundTrip = true) => {
    counts.total++;
    if (roundTrip) counts.roundTrips++;
    if (/^\s*select[\s\S]*from\s+\S+\.workflow_events/i.test(text)) counts.logReads++;
    if (/^\s*update\s+\S+\.threads\s+set\s+lease_expires_at|for update skip locked/i.test(text)) counts.timed++;
  };
  const wrap = <Q extends Queryable>(q: Q): Q["query"] =>
    ((text: string, params?: readonly unknown[]) => {
      note(text);
      return q.query(text, params);
    }) as Q["query"];
  return {
    counts,
    reset() {
      counts.total = 0;
      counts.roundTrips = 0;
      counts.logReads = 0;
      counts.timed = 0;
      counts.transactions = 0;
    },
    db: {
      kind: db.kind,
      query: wrap(db),
      transaction: <T>(fn: (tx: Tx) => Promise<T>) => {
        counts.transactions++;
        counts.total += 2; // BEGIN and COMMIT
        counts.roundTrips += 2;
        return db.transaction((tx) => fn({ ...tx, query: wrap(tx), exec: tx.exec.bind(tx) }));
      },
      batch: (statements) => {
        counts.transactions++;
        counts.total += 2; // BEGIN and COMMIT
        counts.roundTrips += 1;
        for (const st of statements) note(st.text, false);
        return db.batch(statements);
      },
      close: () => db.close(),
    },
  };
}
