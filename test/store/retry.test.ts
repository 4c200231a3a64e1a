import pg from "pg";
import { describe, expect, it } from "vitest";
import { CommitOutcomeUnknownError } from "../../server/store/errors.ts";
import { isTransientError, withRetry } from "../../server/store/retry.ts";

const pgError = (code: string) => Object.assign(new Error(`sqlstate ${code}`), { code });

describe("retry", () => {
  it("tells transient errors from the rest", () => {
    expect(isTransientError(pgError("40001"))).toBe(true); // serialization_failure
    expect(isTransientError(pgError("40P01"))).toBe(true); // deadlock_detected
    expect(isTransientError(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }))).toBe(true);
    expect(isTransientError(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isTransientError(new Error("wrapped", { cause: pgError("57P01") }))).toBe(true);
    expect(isTransientError(pgError("23505"))).toBe(false); // unique_violation
    expect(isTransientError(pgError("22P05"))).toBe(false); // untranslatable_character
    expect(isTransientError(new CommitOutcomeUnknownError(new Error("Connection terminated")))).toBe(false);
  });

  it("retries transient failures, and only those", async () => {
    let calls = 0;
    const flaky = () => (++calls < 3 ? Promise.reject(pgError("40P01")) : Promise.resolve("ok"));
    await expect(withRetry(flaky, { baseDelayMs: 1 })).resolves.toBe("ok");
    expect(calls).toBe(3);

    calls = 0;
    const broken = () => {
      calls++;
      return Promise.reject(pgError("23505"));
    };
    await expect(withRetry(broken, { baseDelayMs: 1 })).rejects.toMatchObject({ code: "23505" });
    expect(calls).toBe(1);

    calls = 0;
    const down = () => {
      calls++;
      return Promise.reject(pgError("57P03"));
    };
    await expect(withRetry(down, { attempts: 4, baseDelayMs: 1 })).rejects.toMatchObject({ code: "57P03" });
    expect(calls).toBe(4);
  });

  it("retries for a bounded time, then lets the error stand", async () => {
    let calls = 0;
    const down = () => {
      calls++;
      return Promise.reject(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }));
    };
    await expect(withRetry(down, { maxElapsedMs: 50, baseDelayMs: 1, maxDelayMs: 5 })).rejects.toMatchObject({ code: "ECONNREFUSED" });
    expect(calls).toBeGreaterThan(1);

    // An outage shorter than the bound pauses the caller instead of failing it.
    calls = 0;
    const outage = () => (++calls <= 20 ? Promise.reject(new Error("Query read timeout")) : Promise.resolve("ok"));
    await expect(withRetry(outage, { maxElapsedMs: 10_000, baseDelayMs: 1, maxDelayMs: 2 })).resolves.toBe("ok");
    expect(calls).toBe(21);
  });
});

describe.skipIf(!process.env.DATABASE_URL)("retry against Postgres", () => {
  it("a transaction the server ended for sitting idle (this process too busy to go on) runs again", async () => {
    const errors: unknown[] = [];
    let attempts = 0;
    const one = await withRetry(
      async () => {
        attempts++;
        const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
        client.on("error", () => {}); // the FATAL also reaches the client; the query reports it
        await client.connect();
        try {
          await client.query("begin");
          await client.query("set local idle_in_transaction_session_timeout = 100");
          // Starved past the server's bound: the server ends the session before the next statement.
          if (attempts === 1) {
            const until = performance.now() + 600;
            while (performance.now() < until);
          }
          const { rows } = await client.query<{ one: number }>("select 1 as one");
          await client.query("commit");
          return rows[0]!.one;
        } catch (err) {
          errors.push(err);
          throw err;
        } finally {
          await client.end().catch(() => {});
        }
      },
      { baseDelayMs: 1 },
    );
    expect(one).toBe(1);
    expect(attempts).toBe(2);
    expect(errors).toMatchObject([{ code: "25P03" }]);
  });
});
