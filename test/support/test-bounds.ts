/**
 * The model read timeout (LLM_READ_TIMEOUT_MS) of every test server: above every bound a test
 * waits with, because tests hold answers mid-stream while they kill, start and hand over
 * instances. At 20 s, poolers.test.ts's rolling upgrade ended B's held answers with RUN_ERROR
 * UPSTREAM_TIMEOUT whenever starting B2 took longer than that on a loaded machine (confirmed:
 * at 3 s every path fails with that code). The timeout itself is tested with its own short
 * values (test/llm/failures.test.ts, test/models/adapters.test.ts).
 * Rejected: a bound near the production default (60 s), which ends runs for a reason no test asks about.
 */
export const TEST_READ_TIMEOUT_MS = 600_000;
