/**
 * The chat first (issue 32, deliver 1): at 1440×900 the conversation is the main column, centred,
 * its message box past 640 px, and no raw event log shows until asked; the shared state and the
 * events are a side column a person opens, remembered by the browser (closed at first on the
 * Threadline agent's page, open on a demo page, the events folded either way); the header shows
 * the thread's title, not its id, and follows a rename; a tool card reads as a label and a line,
 * its JSON behind "Details". On a phone the side column is a drawer, closed at load.
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { type Device, describeBrowser, launchBrowser, openApp, PHONE, screenshot, send, useApp, waitForStatus } from "./harness.ts";

const WIDE: Device = { viewport: { width: 1440, height: 900 } };

const visible = (page: Page, testId: string) => page.getByTestId(testId).isVisible();
const box = async (page: Page, selector: string) => (await page.locator(selector).first().boundingBox())!;

describeBrowser("the chat first", () => {
  const app = useApp({}, WIDE);

  it("at 1440×900: the chat is the centred main column with a message box past 640 px; state and events wait behind the toggle, and the browser remembers", async () => {
    const page = await app.browser.newPage();
    await openApp(page, app.server.url);
    const input = await box(page, ".chat-input .copilotKitInput");
    expect(input.width).toBeGreaterThanOrEqual(640);
    expect((await box(page, '[data-testid="copilot-chat-textarea"]')).width).toBeGreaterThanOrEqual(640);
    // Centred in its column (the window less the threads).
    const column = await box(page, ".chat-column");
    expect(Math.abs(input.x + input.width / 2 - (column.x + column.width / 2))).toBeLessThan(4);
    expect(await page.getByTestId("app").getAttribute("data-side")).toBe("closed");
    expect(await page.getByTestId("toggle-panels").getAttribute("aria-expanded")).toBe("false");
    expect(await visible(page, "state-panel")).toBe(false);
    expect(await visible(page, "inspector")).toBe(false);

    await send(page, "Make a plan to launch the website");
    await waitForStatus(page, "WAITING", 30_000);
    await expect.poll(() => page.getByTestId("thread-heading").textContent(), { timeout: 10_000 }).toBe("Make a plan to launch the website");
    // No raw event log anywhere in the page, not even hidden: the events are not drawn until asked.
    expect(await page.getByTestId("event-list").count()).toBe(0);
    expect(await page.getByTestId("event").count()).toBe(0);
    await screenshot(page, "60-chat-first-1440");

    // Opened: the state beside the chat; the message box keeps its width; the events stay folded.
    await page.getByTestId("toggle-panels").click();
    await page.getByTestId("state-panel").waitFor();
    expect(await page.getByTestId("toggle-panels").getAttribute("aria-expanded")).toBe("true");
    expect((await box(page, ".chat-input .copilotKitInput")).width).toBeGreaterThanOrEqual(640);
    expect(await page.getByTestId("event-list").count()).toBe(0);
    expect(await page.getByTestId("events-toggle").getAttribute("aria-expanded")).toBe("false");
    await page.getByTestId("events-toggle").click();
    await expect.poll(() => page.getByTestId("event").count()).toBeGreaterThan(0);
    await screenshot(page, "61-chat-first-side-open");

    // A reload keeps both; closing keeps that too.
    await page.reload();
    await page.getByTestId("state-panel").waitFor();
    await page.getByTestId("event-list").waitFor();
    await page.locator("#drawer-panels").getByTestId("drawer-close").click();
    await expect.poll(() => visible(page, "state-panel")).toBe(false);
    await page.reload();
    await page.getByTestId("copilot-chat-textarea").waitFor();
    expect(await page.getByTestId("app").getAttribute("data-side")).toBe("closed");
    await page.close();
  });

  it("the header shows the thread's title, follows a rename, and titles the browser tab", async () => {
    const page = await app.browser.newPage();
    const threadId = await openApp(page, app.server.url);
    expect(await page.getByTestId("thread-heading").textContent()).toBe("New conversation");
    await send(page, "What's the weather in Paris?");
    await waitForStatus(page, "WAITING", 30_000);
    await expect.poll(() => page.getByTestId("thread-heading").textContent(), { timeout: 10_000 }).toBe("What's the weather in Paris?");
    expect(await page.locator("header").textContent()).not.toContain(threadId);
    expect(await page.title()).toBe("What's the weather in Paris? · Threadline");

    const item = page.locator(`[data-testid="thread-item"][data-thread-id="${threadId}"]`);
    await item.getByTestId("thread-rename").click();
    await item.getByTestId("thread-rename-input").fill("Paris trip");
    await item.getByTestId("thread-rename-input").press("Enter");
    await expect.poll(() => page.getByTestId("thread-heading").textContent(), { timeout: 10_000 }).toBe("Paris trip");
    await expect.poll(() => page.title()).toBe("Paris trip · Threadline");
    // Opened by its address once archived: still its title, and marked archived.
    await item.getByTestId("thread-archive").click();
    // Archiving the page's thread keeps the page on it (thread-list.test.ts); then opened by its address afresh.
    await page.goto(`${app.server.url}/t/${threadId}`);
    await expect.poll(() => page.getByTestId("thread-heading").textContent(), { timeout: 10_000 }).toBe("Paris trip");
    await page.getByTestId("thread-archived").waitFor();
    await page.close();
  });

  it("a tool card: a label and a one-line summary; the raw arguments and result behind Details", async () => {
    const page = await app.browser.newPage();
    await openApp(page, app.server.url);
    await send(page, "Make a plan to launch the website");
    await waitForStatus(page, "WAITING", 30_000);
    const card = page.locator('[data-testid="tool-card"][data-tool="run_plan"]');
    await expect.poll(() => card.getAttribute("data-status")).toBe("Complete");
    expect(await card.getByTestId("tool-label").textContent()).toBe("Plan");
    expect(await card.getByTestId("tool-summary").textContent()).toBe("launch the website · 4 steps");
    expect(await card.locator(".tool-card-head").textContent()).not.toContain("run_plan");
    expect(await card.getByTestId("tool-args").isVisible()).toBe(false);
    expect(await card.getByTestId("tool-result").isVisible()).toBe(false);
    // The terminal output is for people: it stays in view.
    expect(await card.getByTestId("terminal").isVisible()).toBe(true);
    await card.getByTestId("tool-details").locator("summary").click();
    expect(JSON.parse((await card.getByTestId("tool-args").textContent())!)).toMatchObject({ goal: "launch the website" });
    expect(await card.getByTestId("tool-result").isVisible()).toBe(true);
    await screenshot(page, "62-tool-card-details");
    await page.close();
  });

  it("a demo page opens with its panel beside the chat and the events folded", async () => {
    const page = await app.browser.newPage();
    await openApp(page, app.server.url, { feature: "shared-state" });
    await page.getByTestId("demo-intro").waitFor();
    expect(await page.getByTestId("app").getAttribute("data-side")).toBe("open");
    expect(await page.getByTestId("event-list").count()).toBe(0);
    expect((await box(page, ".chat-input .copilotKitInput")).width).toBeGreaterThanOrEqual(640);
    await screenshot(page, "63-demo-panel-open");
    await page.close();
  });

  it("on a phone: the chat has the screen, and a demo page's panel is a drawer, closed at load", async () => {
    const phone = await launchBrowser(PHONE);
    try {
      const page = await phone.newPage();
      await openApp(page, app.server.url, { feature: "shared-state" });
      expect(await visible(page, "demo-intro")).toBe(false);
      expect(await page.getByTestId("toggle-panels").getAttribute("aria-expanded")).toBe("false");
      await page.getByTestId("suggestion").first().tap();
      await waitForStatus(page, "WAITING", 30_000);
      await expect.poll(() => page.getByTestId("thread-heading").textContent(), { timeout: 10_000 }).not.toBe("New conversation");
      await screenshot(page, "64-phone-chat-first");
      await page.getByTestId("toggle-panels").tap();
      await page.getByTestId("demo-intro").waitFor();
      expect(await page.getByTestId("event-list").count()).toBe(0);
      await screenshot(page, "65-phone-panel-drawer");
    } finally {
      await phone.close();
    }
  });
});
