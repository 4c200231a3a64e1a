/**
 * The one place that decides "the database is unavailable" (server/store/availability.ts), and
 * what the HTTP layer makes of it. The errors are the shapes node-postgres produces, as measured
 * through the TCP proxy (test/durability/db-outage.test.ts drives the real ones end to end).
 */
import { describe, expect, it } from "vitest";
import { describeError } from "../../server/http/errors.ts";
import { classifyDbError, withinWait } from "../../server/store/availability.ts";
import { CommitOutcomeUnknownError, DatabaseUnavailableError } from "../../server/store/errors.ts";
import { isStoreUnavailable, isTransientError } from "../../server/store/retry.ts";

const errno = (code: string, message: string) => Object.assign(new Error(message), { code });
const pgError = (code: string) => Object.assign(new Error(`sqlstate ${code}`), { code });

describe("database availability", () => {
  it("classifies every way pg says the database is gone, and nothing else", () => {
    const cases: [unknown, string][] = [
      [errno("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432"), "refused"],
      [errno("ECONNRESET", "connect ECONNRESET 127.0.0.1:5432"), "reset"],
      [new Error("Connection terminated unexpectedly"), "reset"],
      [new Error("timeout exceeded when trying to connect"), "silent"],
      [new Error("Connection terminated due to connection timeout"), "silent"],
      [new Error("Query read timeout"), "silent"],
      [pgError("57P01"), "unreachable"], // admin_shutdown
      [pgError("08006"), "unreachable"], // connection_failure
    ];
    for (const [err, failure] of cases) {
      const classified = classifyDbError(err);
      expect(classified).toBeInstanceOf(DatabaseUnavailableError);
      expect(classified).toMatchObject({ code: "DATABASE_UNAVAILABLE", failure, cause: err });
      // Still transient for the retry loop, and unavailable for the run writer.
      expect(isTransientError(classified)).toBe(true);
      expect(isStoreUnavailable(classified)).toBe(true);
    }
    // The data's fault, contention, and a commit of unknown outcome keep their own errors.
    for (const err of [pgError("23505"), pgError("40001"), new CommitOutcomeUnknownError(new Error("Connection terminated"))]) {
      expect(classifyDbError(err)).toBe(err);
    }
  });

  it("a read with no answer within its bound is the database unavailable; one that answers is its answer", async () => {
    const never = new Promise<never>(() => undefined);
    await expect(withinWait(never, 1)).rejects.toMatchObject({ code: "DATABASE_UNAVAILABLE", failure: "read_wait", message: expect.stringContaining("DB_CONNECT_TIMEOUT_MS") });
    await expect(withinWait(Promise.resolve("rows"), 1)).resolves.toBe("rows");
    const refused = classifyDbError(errno("ECONNREFUSED", "connect ECONNREFUSED"));
    await expect(withinWait(Promise.reject(refused), 1_000)).rejects.toBe(refused);
  });

  it("is answered 503 DATABASE_UNAVAILABLE with Retry-After, naming the database and not its address", () => {
    const described = describeError(classifyDbError(errno("ECONNREFUSED", "connect ECONNREFUSED 10.0.0.7:5432")));
    expect(described).toMatchObject({ status: 503, code: "DATABASE_UNAVAILABLE", retryAfterSeconds: expect.any(Number) });
    expect(described!.message).toMatch(/database is unavailable \(it refused the connection\)/);
    expect(described!.message).not.toMatch(/10\.0\.0\.7/);
  });
});
