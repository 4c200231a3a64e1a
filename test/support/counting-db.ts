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
  /** Every answer waited for, in order: a statement's text, or "batch" for a pipelined batch. */
  trips: string[];
}

/** A read of the event log. */
export const isLogRead = (text: string): boolean => /^\s*select[\s\S]*from\s+\S+\.workflow_events/i.test(text);
/**
 * A lease heartbeat, a recovery sweep (its read of candidates, and a claim), or a poll of the webhook outbox or of the schedules (and
 * their unstarted ticks): they come with time, not with runs.
 */
export const isTimed = (text: string): boolean =>
  /update\s+\S+\.threads(\s+t)?\s+set\s+lease_expires_at|for update skip locked|order by lease_expires_at nulls first|from\s+\S+\.(webhook_outbox|schedules|schedule_runs)\s+where\s+(delivered_at is null|not paused|started_at is null)/i.test(text);

export function countingDb(db: Db): { db: Db; counts: StatementCounts; reset(): void } {
  const counts: StatementCounts = { total: 0, roundTrips: 0, logReads: 0, timed: 0, transactions: 0, trips: [] };
  const note = (text: string, roundTrip = true) => {
    counts.total++;
    if (roundTrip) {
      counts.roundTrips++;
      counts.trips.push(text);
    }
    if (isLogRead(text)) counts.logReads++;
    if (isTimed(text)) counts.timed++;
  };
  const wrap = <Q extends Queryable>(q: Q): Q["query"] =>
    ((text: string, params?: readonly unknown[], name?: string) => {
      note(text);
      return q.query(text, params, name);
    }) as Q["query"];
  return {
    counts,
    reset() {
      counts.total = 0;
      counts.roundTrips = 0;
      counts.logReads = 0;
      counts.timed = 0;
      counts.transactions = 0;
      counts.trips = [];
    },
    db: {
      kind: db.kind,
      query: wrap(db),
      transaction: <T>(fn: (tx: Tx) => Promise<T>) => {
        counts.transactions++;
        counts.total += 2; // BEGIN and COMMIT
        counts.roundTrips += 2;
        counts.trips.push("begin");
        return db.transaction((tx) => fn({ ...tx, query: wrap(tx), exec: tx.exec.bind(tx) }));
      },
      batch: (statements) => {
        counts.transactions++;
        counts.total += 2; // BEGIN and COMMIT
        counts.roundTrips += 1;
        counts.trips.push("batch");
        for (const st of statements) note(st.text, false);
        return db.batch(statements);
      },
      close: () => db.close(),
    },
  };
}
