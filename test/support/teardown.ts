/**
 * A setup file of every test file (vitest.config.ts): when the file's tests and their own
 * afterAll hooks are done, the data directories of test servers never closed are removed
 * (data-dirs.ts), and the Postgres schemas it created through testSchema() are dropped, and
 * the file fails if one is left (schemas.ts).
 */
import { afterAll } from "vitest";
import { removeTestDataDirs } from "./data-dirs.ts";
import { dropTestSchemas } from "./schemas.ts";

// Registered first, so it runs last: after the file's own hooks have closed its servers.
afterAll(async () => {
  removeTestDataDirs();
  const url = process.env.DATABASE_URL;
  if (!url) return;
  const { left, errors } = await dropTestSchemas(url);
  if (left.length > 0) throw new Error(`test schemas left behind on ${url}: ${left.join(", ")}${errors.length ? ` (${errors.join("; ")})` : ""}`);
}, 60_000);
