/**
 * Pool-mode detection (server/store/pool-mode.ts) against a direct Postgres through the TCP
 * proxy, with one probe statement answered late: each statement of the probe waits as long as
 * the store's statement bound says, and no longer. (Against PgBouncer in both modes:
 * test/durability/poolers.test.ts.)
 */
import { afterEach, describe, expect, it } from "vitest";
import { connectionConfig, DEFAULT_DB_TIMEOUTS, QUERY_TIMEOUT_MARGIN_MS } from "../../server/store/pg-connections.ts";
import { detectPoolMode } from "../../server/store/pool-mode.ts";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.ts";

const DATABASE_URL = process.env.DATABASE_URL;
/** The probe's holders each begin a transaction: the statement answered late here. */
const isBegin = (chunk: Buffer) => chunk.includes("begin");

describe.skipIf(!DATABASE_URL)("pool-mode detection with a slow answer", () => {
  let proxy: TcpProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });

  async function probeThrough(statementMs: number, delayMs: number) {
    const url = new URL(DATABASE_URL!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    const delayed = proxy.delayOnce(isBegin, delayMs);
    const config = connectionConfig(proxy.url(DATABASE_URL!), "threadline:pool-mode-test", { ...DEFAULT_DB_TIMEOUTS, statementMs });
    return { mode: detectPoolMode(config), delayed };
  }

  it("a statement answered later than a couple of seconds, within the statement bound: still a session", async () => {
    // 2.5 s: past the probe's former bound of its own (2 s), well within 4 s + the margin.
    const { mode, delayed } = await probeThrough(4_000, 2_500);
    expect(await mode).toBe("session");
    await delayed; // the late statement was the one delayed, not skipped
  });

  it("a statement answered after the statement bound: the probe fails with the client's timeout", async () => {
    const statementMs = 500;
    const { mode } = await probeThrough(statementMs, statementMs + QUERY_TIMEOUT_MARGIN_MS + 1_500);
    await expect(mode).rejects.toThrow(/Query read timeout/);
  });
});
