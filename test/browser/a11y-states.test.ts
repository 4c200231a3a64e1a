/**
 * axe-core finds no critical or serious violation in the states the other browser tests reach,
 * besides the pages at rest (a11y.test.ts): a reply streaming, an approval waiting, a failed
 * run, after a coding session (its terminal, code and diff views scroll: each is focusable and
 * named, so a keyboard can scroll it), dark mode after a conversation, and on a phone with either
 * drawer open.
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { DEMO_FAILURE_PROMPT } from "../../server/demo/fixtures.ts";
import { axeViolations, blocking } from "./axe.ts";
import { describeBrowser, launchBrowser, openApp, PHONE, screenshot, send, useApp, waitForStatus } from "./harness.ts";

const CODING_PROMPT = "Write hello.py, run it, then change the greeting and run it again";

describeBrowser("accessibility in every state", () => {
  // Plan steps slow enough that the run is still streaming when axe looks.
  const app = useApp({ planStepDelayMs: 600 });
  const found: Record<string, string[]> = {};
  const check = async (page: Page, state: string) => {
    found[state] = blocking(await axeViolations(page));
  };

  it("streaming, an approval waiting, a failed run, dark mode", async () => {
    const page = await app.browser.newPage();
    await openApp(page, app.server.url);
    await send(page, "Make a plan to launch the website");
    await waitForStatus(page, "RUNNING");
    await page.getByTestId("copilot-assistant-message").first().waitFor();
    await check(page, "streaming");
    await waitForStatus(page, "WAITING", 60_000);

    await openApp(page, app.server.url);
    await send(page, "Delete the old drafts");
    await page.locator('[data-testid="approval-card"][data-state="asking"]').waitFor({ timeout: 20_000 });
    await check(page, "approval pending");

    await openApp(page, app.server.url);
    await send(page, DEMO_FAILURE_PROMPT);
    await waitForStatus(page, "FAILED", 30_000);
    await page.getByTestId("error-banner").waitFor();
    await check(page, "a failed run");

    await page.emulateMedia({ colorScheme: "dark" });
    await openApp(page, app.server.url);
    await send(page, "What's the weather in Paris?");
    await waitForStatus(page, "WAITING", 30_000);
    await page.getByTestId("copilot-assistant-message").first().waitFor();
    await check(page, "dark, after a reply");
    await page.close();
    expect(Object.entries(found).filter(([, v]) => v.length > 0)).toEqual([]);
  }, 180_000);

  it("after a coding session: the terminal, code and diff views", async () => {
    const page = await app.browser.newPage();
    await openApp(page, app.server.url, { feature: "coding" });
    await send(page, CODING_PROMPT);
    await waitForStatus(page, "WAITING", 60_000);
    await page.locator('[data-testid="tool-card"][data-tool="edit"]').getByTestId("diff").waitFor({ timeout: 20_000 });
    await check(page, "coding, after a session");
    // Each scrolling view is reached by Tab and named.
    const views = (await page.evaluate(`[...document.querySelectorAll('[data-testid="terminal"], [data-testid="file-content"], [data-testid="diff"], [data-testid="read-content"]')].map((e) => [e.getAttribute("tabindex"), e.getAttribute("aria-label") || e.getAttribute("aria-labelledby")])`)) as [string | null, string | null][];
    expect(views.length).toBeGreaterThan(3);
    for (const [tabindex, name] of views) {
      expect(tabindex).toBe("0");
      expect(name).toBeTruthy();
    }
    await screenshot(page, "a11y-coding");
    await page.close();
    expect(found["coding, after a session"]).toEqual([]);
  }, 120_000);

  it("on a phone, with the threads drawer and the side drawer open", async () => {
    const phone = await launchBrowser(PHONE);
    try {
      const page = await phone.newPage();
      await openApp(page, app.server.url, { feature: "shared-state" });
      await page.getByTestId("toggle-nav").tap();
      await page.getByTestId("thread-list").waitFor();
      await check(page, "phone, threads drawer");
      await screenshot(page, "a11y-phone-nav");
      await page.locator("#drawer-nav").getByTestId("drawer-close").tap();
      await page.getByTestId("toggle-panels").tap();
      await page.getByTestId("drawer-panels").waitFor();
      await check(page, "phone, side drawer");
      await screenshot(page, "a11y-phone-panels");
      expect(found["phone, threads drawer"]).toEqual([]);
      expect(found["phone, side drawer"]).toEqual([]);
    } finally {
      await phone.close();
    }
  }, 90_000);
});
