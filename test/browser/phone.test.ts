/**
 * The app on a phone held upright (390×844, touch): the chat has the screen and its input is
 * within reach of a thumb; the agents, threads, state and events sit behind the top bar's two
 * toggles; everything is driven by taps and the on-screen keyboard's typing.
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { assistantMessages, describeBrowser, openApp, PHONE, screenshot, useApp, waitForStatus } from "./harness.ts";

const { width, height } = PHONE.viewport;

async function insideViewport(page: Page, testId: string): Promise<void> {
  const box = await page.getByTestId(testId).boundingBox();
  expect(box, testId).not.toBeNull();
  expect(box!.x, testId).toBeGreaterThanOrEqual(0);
  expect(box!.y, testId).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width, testId).toBeLessThanOrEqual(width);
  expect(box!.y + box!.height, testId).toBeLessThanOrEqual(height);
}

describeBrowser("the app on a phone", () => {
  const app = useApp({}, PHONE);

  it("the input is on screen and takes a message by tap; threads and panels open from the top bar", async () => {
    const page = await app.browser.newPage();
    await openApp(page, app.server.url);
    // Nothing wider than the screen: no sideways scrolling to find the chat.
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(width);
    await insideViewport(page, "copilot-chat-textarea");
    await insideViewport(page, "toggle-nav");
    await insideViewport(page, "toggle-panels");
    // The panels are behind their toggles, not beside the chat.
    expect(await page.getByTestId("thread-list").isVisible()).toBe(false);
    expect(await page.getByTestId("state-panel").isVisible()).toBe(false);
    await page.getByTestId("greeting").waitFor();
    await screenshot(page, "phone-01-empty-chat");

    await page.getByTestId("copilot-chat-textarea").tap();
    await page.keyboard.type("Hello there");
    await page.getByTestId("copilot-send-button").tap();
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("OPENAI_API_KEY");
    await waitForStatus(page, "WAITING");
    expect(await page.getByTestId("greeting").count()).toBe(0);
    await insideViewport(page, "copilot-chat-textarea");
    await screenshot(page, "phone-02-reply");

    await page.getByTestId("toggle-nav").tap();
    await page.getByTestId("thread-list").waitFor();
    await insideViewport(page, "drawer-nav");
    expect(await page.getByTestId("toggle-nav").getAttribute("aria-expanded")).toBe("true");
    await expect.poll(() => page.getByTestId("thread-item").count()).toBeGreaterThan(0);
    await screenshot(page, "phone-03-threads");
    // The scrim beside the drawer closes it, and the chat is back.
    await page.getByTestId("scrim").tap({ position: { x: width - 10, y: height / 2 } });
    await expect.poll(() => page.getByTestId("thread-list").isVisible()).toBe(false);

    await page.getByTestId("toggle-panels").tap();
    await page.getByTestId("state-panel").waitFor();
    await page.getByTestId("inspector").waitFor();
    await screenshot(page, "phone-04-state-and-events");
    // This one has the whole width: its Close button closes it.
    await page.locator("#drawer-panels").getByTestId("drawer-close").tap();
    await expect.poll(() => page.getByTestId("state-panel").isVisible()).toBe(false);
    await insideViewport(page, "copilot-chat-textarea");
    await page.close();
  }, 60_000);

  it("a demo page: the picker is in the drawer, and a tapped suggestion runs", async () => {
    const page = await app.browser.newPage();
    await openApp(page, app.server.url, { feature: "backend-tool-rendering" });
    await insideViewport(page, "copilot-chat-textarea");
    await page.getByTestId("suggestion").first().tap();
    await page.getByTestId("weather-card").locator(".weather-temp").waitFor({ timeout: 20_000 });
    await waitForStatus(page, "WAITING");
    await screenshot(page, "phone-05-demo-weather");
    await page.getByTestId("toggle-nav").tap();
    await page.getByTestId("demo-picker").waitFor();
    await insideViewport(page, "demo-picker");
    await page.close();
  });
});
