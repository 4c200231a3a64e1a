/**
 * An empty chat greets with its agent's greeting and suggestions (from the definition, through
 * GET /api/agents/:id); a clicked suggestion is sent as if typed; while the run goes, Stop is in
 * the input (not the header) and stops it; HTML-looking words in an answer are shown as written;
 * the Edit box is a styled card.
 */
import { expect, it } from "vitest";
import { assistantMessages, describeBrowser, openApp, screenshot, send, useApp, waitForStatus } from "./harness.ts";

describeBrowser("greeting, suggestions and Stop in the input", () => {
  // Plan steps slow enough to press Stop during the run.
  const app = useApp({ planStepDelayMs: 1500 });

  it("the greeting and suggestions come from the agent; a suggestion runs; Stop in the input cancels", async () => {
    const page = await app.browser.newPage();
    await openApp(page, app.server.url);
    const welcome = (await (await fetch(`${app.server.url}/api/agents/default`)).json()) as { welcome: { greeting: string; suggestions: string[] } };
    await expect.poll(() => page.getByTestId("greeting").textContent()).toContain(welcome.welcome.greeting);
    expect(await page.getByTestId("suggestion").allTextContents()).toEqual(welcome.welcome.suggestions);
    await screenshot(page, "40-greeting");

    const plan = welcome.welcome.suggestions.find((s) => s.startsWith("Make a plan"))!;
    await page.getByTestId("suggestion").filter({ hasText: plan }).click();
    await expect.poll(() => page.getByTestId("copilot-user-message").first().textContent()).toContain(plan);
    expect(await page.getByTestId("greeting").count()).toBe(0);
    // Stop is the input's own button while the run goes; the header has none.
    const stop = page.getByTestId("chat-input").getByTestId("cancel-button");
    await stop.waitFor({ timeout: 20_000 });
    expect(await page.locator("header [data-testid=cancel-button]").count()).toBe(0);
    expect(await stop.getAttribute("aria-label")).toBe("Stop the run");
    await screenshot(page, "41-stop-in-input");
    await stop.click();
    await waitForStatus(page, "CANCELLED");
    expect(await page.getByTestId("cancel-button").count()).toBe(0);
    await page.close();
  }, 60_000);

  it("shows <model> in an answer as written, and the Edit box as a card", async () => {
    const page = await app.browser.newPage();
    await openApp(page, app.server.url);
    await send(page, "Make a plan to set the <model> flag");
    await expect.poll(() => assistantMessages(page).first().textContent(), { timeout: 20_000 }).toContain("set the <model> flag");
    await waitForStatus(page, "WAITING", 40_000);
    await page.getByTestId("copilot-user-message").first().hover();
    await page.getByTestId("copilot-user-message").first().getByTestId("copilot-edit-button").click();
    const box = page.getByTestId("edit-box");
    await box.waitFor();
    expect(await page.evaluate(`document.activeElement?.dataset.testid`)).toBe("edit-text");
    expect(await page.evaluate(`getComputedStyle(document.querySelector('[data-testid="edit-box"]')).boxShadow`)).not.toBe("none");
    await screenshot(page, "42-edit-box");
    await page.keyboard.press("Escape");
    await expect.poll(() => box.count()).toBe(0);
    await page.close();
  }, 90_000);
});
