/**
 * Durability in the browser: a reload in the middle of a stream brings the conversation back and
 * re-attaches to the live run; Cancel stops a run durably and the chrome says so.
 */
import { expect, it } from "vitest";
import { DEMO_FAILURE_PROMPT } from "../../server/demo/fixtures.ts";
import { assistantMessages, describeBrowser, openApp, screenshot, send, waitForStatus, useApp } from "./harness.ts";

describeBrowser("reload and cancel in the browser", () => {
  // Slow plan steps: a run takes seconds, time enough to reload or cancel in the middle.
  const app = useApp({ planStepDelayMs: 1200 });

  it("a reload in the middle of a stream restores the conversation and the stream goes on", async () => {
    const page = await app.browser.newPage();
    const threadId = await openApp(page, app.server.url);
    await send(page, "Make a plan to launch the website");
    await waitForStatus(page, "RUNNING");
    await expect.poll(() => page.getByTestId("plan-progress").getAttribute("data-done"), { timeout: 20_000 }).toBe("1");

    await page.reload();
    expect(page.url()).toContain(`/t/${threadId}`);
    // The conversation is back, and the page is attached to the live run.
    await expect.poll(() => page.getByTestId("copilot-user-message").first().textContent(), { timeout: 20_000 }).toContain("Make a plan");
    await expect.poll(() => assistantMessages(page).first().textContent(), { timeout: 20_000 }).toContain("Here is my plan");
    await waitForStatus(page, "RUNNING");
    const before = Number(await page.getByTestId("plan-progress").getAttribute("data-done"));
    expect(before).toBeLessThan(4);
    await screenshot(page, "06a-reload-mid-stream");

    // The same page, without another reload, sees the run through to its end.
    await expect.poll(() => page.getByTestId("plan-progress").getAttribute("data-done"), { timeout: 20_000 }).toBe("4");
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("All 4 steps");
    await waitForStatus(page, "WAITING");
    await expect.poll(() => page.locator('[data-testid="tool-card"][data-tool="run_plan"]').getAttribute("data-status")).toBe("Complete");
    await screenshot(page, "06b-reload-stream-finished");
    await page.close();
  });

  it("cancel: visible only while running, stops the run durably, and shows the cancelled banner", async () => {
    const page = await app.browser.newPage();
    const threadId = await openApp(page, app.server.url);
    expect(await page.getByTestId("cancel-button").count()).toBe(0);
    await send(page, "Make a plan to ship the release");
    await waitForStatus(page, "RUNNING");
    await page.getByTestId("cancel-button").waitFor();
    await screenshot(page, "07a-running-with-cancel");
    await page.getByTestId("cancel-button").click();

    await waitForStatus(page, "CANCELLED");
    await page.getByTestId("cancelled-banner").waitFor();
    expect(await page.getByTestId("cancel-button").count()).toBe(0);
    // Not a dead end: the conversation takes a new message (app-states.test.ts sends one).
    expect(await page.getByTestId("chat-input").getAttribute("data-enabled")).toBe("true");
    // Nothing shows Running once the thread is terminal.
    await expect.poll(() => page.locator('[data-testid="tool-card"][data-status="Running"]').count()).toBe(0);
    const res = await fetch(`${app.server.url}/api/threads/${threadId}`);
    expect(((await res.json()) as { status: string }).status).toBe("CANCELLED");
    await screenshot(page, "07b-cancelled");

    // And after a reload the page still says so.
    await page.reload();
    await waitForStatus(page, "CANCELLED");
    await page.getByTestId("cancelled-banner").waitFor();
    await expect.poll(() => page.locator('[data-testid="tool-card"][data-status="Running"]').count()).toBe(0);
    await page.close();
  });

  it("an upstream failure: the run ends FAILED with the error banner, also after a reload", async () => {
    const page = await app.browser.newPage();
    const threadId = await openApp(page, app.server.url);
    await send(page, DEMO_FAILURE_PROMPT);
    await waitForStatus(page, "FAILED", 30_000);
    const banner = page.getByTestId("error-banner");
    await banner.waitFor();
    expect(await banner.textContent()).toContain("503");
    expect(await page.getByTestId("cancel-button").count()).toBe(0);
    expect(await page.getByTestId("chat-input").getAttribute("data-enabled")).toBe("true");
    const res = await fetch(`${app.server.url}/api/threads/${threadId}`);
    expect(((await res.json()) as { status: string }).status).toBe("FAILED");
    await screenshot(page, "07c-failed");

    await page.reload();
    await waitForStatus(page, "FAILED");
    await page.getByTestId("error-banner").waitFor();
    await page.close();
  });
});
