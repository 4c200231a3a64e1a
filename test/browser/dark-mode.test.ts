/**
 * Dark mode (issue 32, deliver 6): with `prefers-color-scheme: dark` the page is dark (the app's
 * panels and CopilotKit's chat alike); the top bar's toggle switches to light and back, and the
 * browser remembers the pick over the system's setting; axe's color-contrast finds nothing serious
 * in either theme, after a conversation with tool cards and on the coding page after a session
 * (whose line numbers were 2.56:1). Screenshots at desktop and phone sizes.
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { axeViolations, blocking } from "./axe.ts";
import { describeBrowser, launchBrowser, openApp, openEvents, PHONE, screenshot, send, useApp, waitForStatus } from "./harness.ts";

/** The relative luminance (WCAG) of an element's computed background, 0 (black) to 1 (white). */
async function luminance(page: Page, selector: string): Promise<number> {
  const rgb = (await page.evaluate(`getComputedStyle(document.querySelector(${JSON.stringify(selector)})).backgroundColor`)) as string;
  const [r, g, b] = rgb.match(/[\d.]+/g)!.slice(0, 3).map((v) => {
    const c = Number(v) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/**
 * axe's color-contrast once the theme's fade has ended: the app's background eases over 0.4 s
 * (styles.css) while the text takes its new colour at once, so measured mid-fade light text sits on
 * a still-dark panel (CI's failure, stop 37). Awaits the animations rather than a sleep.
 */
const contrast = async (page: Page) => {
  await page.waitForFunction("document.getAnimations().every((a) => a.playState !== 'running')");
  return blocking(await axeViolations(page, { runOnly: { type: "rule", values: ["color-contrast"] } }));
};
const theme = (page: Page) => page.evaluate("document.documentElement.dataset.theme") as Promise<string>;

describeBrowser("dark mode", () => {
  const app = useApp();

  it("follows prefers-color-scheme: dark, page and chat; the toggle switches and is remembered; contrast holds in both", async () => {
    const page = await app.browser.newPage();
    await page.emulateMedia({ colorScheme: "dark" });
    await openApp(page, app.server.url);
    expect(await theme(page)).toBe("dark");
    expect(await page.getByTestId("theme-toggle").getAttribute("aria-pressed")).toBe("true");
    for (const part of ['[data-testid="app"]', ".chat-column", ".topbar", ".threads", ".chat-input .copilotKitInput"]) expect(await luminance(page, part), part).toBeLessThan(0.05);
    await send(page, "Make a plan to launch the website");
    await waitForStatus(page, "WAITING", 30_000);
    await send(page, "Delete the old drafts");
    await page.locator('[data-testid="approval-card"][data-state="asking"]').waitFor({ timeout: 20_000 });
    // openEvents, not two clicks: the app remembers open panels, and a retry's page would close them.
    await openEvents(page);
    await screenshot(page, "90-dark-desktop");
    const found: Record<string, string[]> = { "dark, after a conversation": await contrast(page) };

    // The toggle: light, over the system's dark; remembered by a reload.
    await page.getByTestId("theme-toggle").click();
    expect(await theme(page)).toBe("light");
    expect(await luminance(page, ".chat-column")).toBeGreaterThan(0.9);
    found["light, after a conversation"] = await contrast(page);
    await screenshot(page, "91-light-by-toggle");
    await page.reload();
    await page.getByTestId("copilot-chat-textarea").waitFor();
    expect(await theme(page)).toBe("light");
    await page.getByTestId("theme-toggle").click();
    expect(await theme(page)).toBe("dark");

    // The coding page after a session: terminal, file and diff cards, the workspace.
    await openApp(page, app.server.url, { feature: "coding" });
    await send(page, "Write hello.py, run it, then change the greeting and run it again");
    await waitForStatus(page, "WAITING", 60_000);
    await page.locator('[data-testid="tool-card"][data-tool="edit"]').first().waitFor();
    found["dark, coding after a session"] = await contrast(page);
    await screenshot(page, "92-dark-coding");
    await page.getByTestId("theme-toggle").click();
    found["light, coding after a session"] = await contrast(page);
    await page.getByTestId("theme-toggle").click();
    expect(Object.entries(found).filter(([, v]) => v.length > 0)).toEqual([]);
    await page.close();
  }, 180_000);

  it("on a phone, dark from the system setting: the chat, its input and the drawers", async () => {
    const phone = await launchBrowser(PHONE);
    try {
      const page = await phone.newPage();
      await page.emulateMedia({ colorScheme: "dark" });
      await openApp(page, app.server.url, { feature: "backend-tool-rendering" });
      expect(await theme(page)).toBe("dark");
      await page.getByTestId("suggestion").first().tap();
      await page.getByTestId("weather-card").locator(".weather-temp").waitFor({ timeout: 20_000 });
      await waitForStatus(page, "WAITING");
      expect(await luminance(page, ".chat-column")).toBeLessThan(0.05);
      await screenshot(page, "93-dark-phone");
      await page.getByTestId("toggle-nav").tap();
      await page.getByTestId("thread-list").waitFor();
      expect(await luminance(page, "#drawer-nav")).toBeLessThan(0.05);
      expect(await contrast(page)).toEqual([]);
      await screenshot(page, "94-dark-phone-threads");
    } finally {
      await phone.close();
    }
  });
});
