/**
 * Two server instances on different ports, one Postgres: a page opened on instance B follows,
 * live, a run that a client started on instance A. Runs only when DATABASE_URL is set.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventStore } from "../../server/store/types.ts";
import { testSchema } from "../support/schemas.ts";
import { assistantMessages, describeBrowser, launchBrowser, openApp, openStore, screenshot, startServer, waitForStatus, type AppServer, type Browser } from "./harness.ts";

const suite = process.env.DATABASE_URL ? describeBrowser : (name: string, fn: () => void) => {
  console.warn(`[browser tests] DATABASE_URL is not set: "${name}" skipped (it needs a Postgres shared by two instances).`);
  describe.skip(name, fn);
};

suite("two instances, one Postgres, in the browser", () => {
  const schema = testSchema("b");
  let storeA: EventStore;
  let storeB: EventStore;
  let a: AppServer;
  let b: AppServer;
  let browser: Browser;

  beforeAll(async () => {
    storeA = openStore(schema);
    storeB = openStore(schema);
    a = await startServer({ store: storeA, planStepDelayMs: 700, leaseOwner: "instance-a" });
    b = await startServer({ store: storeB, planStepDelayMs: 700, leaseOwner: "instance-b" });
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await a?.close();
    await b?.close();
    await storeA?.close();
    await storeB?.close();
  });

  it("a page on B shows, live, a run started on A", async () => {
    const page = await browser.newPage();
    // An address made elsewhere (as if shared): a thread this tab minted itself is not asked
    // for until this tab starts a run on it.
    const threadId = await openApp(page, b.url, { threadId: randomUUID() });

    // A plain AG-UI client starts the run on instance A and reads its stream to the end.
    const input = {
      threadId,
      runId: randomUUID(),
      state: {},
      messages: [{ id: randomUUID(), role: "user", content: "Make a plan to move house" }],
      tools: [],
      context: [],
      forwardedProps: {},
    };
    const run = fetch(`${a.url}/api/agents/default/run`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify(input),
    }).then((res) => res.text());

    await waitForStatus(page, "RUNNING");
    await expect.poll(() => page.getByTestId("copilot-user-message").first().textContent(), { timeout: 20_000 }).toContain("move house");
    await expect.poll(() => page.getByTestId("plan-progress").getAttribute("data-done"), { timeout: 20_000 }).toMatch(/^[123]$/);
    await screenshot(page, "09a-instance-b-live");
    await expect.poll(() => page.getByTestId("plan-progress").getAttribute("data-done"), { timeout: 20_000 }).toBe("4");
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("All 4 steps");
    await waitForStatus(page, "WAITING");
    expect(await run).toContain("RUN_FINISHED");
    await screenshot(page, "09b-instance-b-finished");
    await page.close();
  });
});
