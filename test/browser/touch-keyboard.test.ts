/**
 * Every control by touch and keyboard (issue 32, deliver 2): on a phone a person taps their
 * message, its Edit appears, and the edit forks the thread as on a desktop; on a desktop Shift+Tab
 * from the message box reaches Edit, with a visible ring; Copy, Edit, Regenerate, the branch
 * arrows and the thread actions are at least 24×24 px (axe's target-size rule, WCAG 2.2, and
 * measured); Escape stops a run.
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { axeViolations, blocking } from "./axe.ts";
import { assistantMessages, describeBrowser, launchBrowser, openApp, PHONE, screenshot, send, useApp, waitForStatus } from "./harness.ts";

interface ThreadJson {
  branches: unknown[];
  messages: { role: string; content?: unknown }[];
}

/** The bubble of a user message (the toolbar below it is the other child). */
const bubble = (page: Page, n = 0) => page.getByTestId("copilot-user-message").nth(n).locator(":scope > div:not([data-testid])");
/** How visible the toolbar of the n-th user message is (a string: this file is type-checked without the DOM library). */
const opacity = (page: Page, n = 0) =>
  page.evaluate(`Number(getComputedStyle(document.querySelectorAll('[data-testid="copilot-user-toolbar"]')[${n}]).opacity)`) as Promise<number>;

/** What has the focus: its test id, or its tag (a string: this file has no DOM types). */
const focused = (page: Page) =>
  page.evaluate(`(() => { const a = document.activeElement; return a?.dataset?.testid || a?.tagName; })()`) as Promise<string>;

/** A ring a person can see: an outline, or a box shadow (the input draws its ring so). */
const ringOf = (page: Page) =>
  page.evaluate(`(() => { const s = getComputedStyle(document.activeElement); return { outline: s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 2, shadow: s.boxShadow !== "none" }; })()`) as Promise<{ outline: boolean; shadow: boolean }>;

/** The sizes of the matching elements that are drawn. */
async function size(page: Page, selector: string): Promise<{ width: number; height: number }[]> {
  return page.evaluate(
    `[...document.querySelectorAll(${JSON.stringify(selector)})].filter((e) => e.getClientRects().length > 0).map((e) => { const r = e.getBoundingClientRect(); return { width: r.width, height: r.height }; })`,
  ) as Promise<{ width: number; height: number }[]>;
}

describeBrowser("every control by touch and keyboard", () => {
  // Plan steps long enough for an Escape to land while the plan runs.
  const app = useApp({ planStepDelayMs: 600 });
  const thread = async (threadId: string) => (await (await fetch(`${app.server.url}/api/threads/${threadId}`)).json()) as ThreadJson;

  it("on a phone: a tap on my message shows its Edit, and the edit forks the thread", async () => {
    const phone = await launchBrowser(PHONE);
    try {
      const page = await phone.newPage();
      const threadId = await openApp(page, app.server.url);
      await page.getByTestId("copilot-chat-textarea").tap();
      await page.keyboard.type("What's the weather in Paris?");
      await page.getByTestId("copilot-send-button").tap();
      await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("In Paris it is");
      await waitForStatus(page, "WAITING");
      // Hidden until asked: a phone has no hover to show it.
      expect(await opacity(page)).toBe(0);
      await bubble(page).tap();
      await expect.poll(() => opacity(page)).toBe(1);
      const edit = page.getByTestId("copilot-edit-button").first();
      const target = (await edit.boundingBox())!;
      expect(Math.min(target.width, target.height)).toBeGreaterThanOrEqual(24);
      await screenshot(page, "70-phone-message-tapped");
      await edit.tap();
      await page.getByTestId("edit-box").waitFor();
      await page.getByTestId("edit-text").tap();
      await page.getByTestId("edit-text").fill("");
      await page.keyboard.type("What's the weather in Tokyo?");
      await screenshot(page, "71-phone-editing");
      await page.getByTestId("edit-save").tap();
      await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("In Tokyo it is");
      await waitForStatus(page, "WAITING");
      // Forked, as on a desktop: two branches, the current one asks about Tokyo, "‹ 2/2 ›" under it.
      const now = await thread(threadId);
      expect(now.branches).toHaveLength(2);
      expect(now.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["What's the weather in Tokyo?"]);
      await expect.poll(() => page.getByTestId("branch-position").allTextContents(), { timeout: 20_000 }).toEqual(["2/2"]);
      for (const arrow of await size(page, '[data-testid="branch-prev"], [data-testid="branch-next"]')) expect(Math.min(arrow.width, arrow.height)).toBeGreaterThanOrEqual(24);
      await page.getByTestId("branch-prev").tap();
      await expect.poll(() => page.getByTestId("copilot-user-message").allTextContents()).toEqual([expect.stringContaining("Paris")]);
      await screenshot(page, "72-phone-forked");
      // A tap elsewhere hides the toolbar again.
      await bubble(page).tap();
      await expect.poll(() => opacity(page)).toBe(1);
      await assistantMessages(page).last().tap();
      await expect.poll(() => opacity(page)).toBe(0);
    } finally {
      await phone.close();
    }
  }, 120_000);

  it("on a desktop: Shift+Tab from the message box reaches Edit, with a ring; Enter opens the edit; Escape closes it", async () => {
    const page = await app.browser.newPage();
    await openApp(page, app.server.url);
    await send(page, "Hello there");
    await waitForStatus(page, "WAITING");
    await assistantMessages(page).first().waitFor();
    await page.getByTestId("copilot-chat-textarea").focus();
    let reached = false;
    // Back through the answer's toolbar (Copy, Regenerate) to the question's (Edit, Copy).
    for (let n = 0; n < 8 && !reached; n++) {
      await page.keyboard.press("Shift+Tab");
      reached = (await focused(page)) === "copilot-edit-button";
    }
    expect(reached).toBe(true);
    expect((await ringOf(page)).outline).toBe(true);
    // Focus reveals the toolbar that hover would (after its fade).
    await expect.poll(() => opacity(page)).toBe(1);
    await screenshot(page, "73-desktop-edit-focused");
    await page.keyboard.press("Enter");
    await page.getByTestId("edit-box").waitFor();
    expect(await focused(page)).toBe("edit-text");
    await page.keyboard.press("Escape");
    await expect.poll(() => page.getByTestId("edit-box").count()).toBe(0);
    expect(await focused(page)).toBe("copilot-chat-textarea");

    // The thread's actions come by Tab after its title, each with a ring.
    await page.locator('[data-testid="thread-item"].current [data-testid="thread-title"]').focus();
    for (const action of ["thread-rename", "thread-archive", "thread-delete"]) {
      await page.keyboard.press("Tab");
      expect(await focused(page)).toBe(action);
      expect((await ringOf(page)).outline).toBe(true);
    }
    await page.close();
  });

  it("targets of at least 24×24 px: axe's target-size finds nothing, and the chat's and the list's controls measure so", async () => {
    const page = await app.browser.newPage();
    await openApp(page, app.server.url);
    await send(page, "What's the weather in Paris?");
    await waitForStatus(page, "WAITING");
    await assistantMessages(page).last().getByRole("button", { name: "Regenerate", exact: true }).click();
    await expect.poll(() => page.getByTestId("branch-position").allTextContents(), { timeout: 30_000 }).toEqual(["2/2"]);
    await waitForStatus(page, "WAITING");
    await page.getByTestId("copilot-user-message").first().hover();
    expect(blocking(await axeViolations(page, { runOnly: { type: "rule", values: ["target-size"] } }))).toEqual([]);
    const controls = [
      '[data-testid="copilot-edit-button"]',
      '[data-testid="copilot-user-copy-button"]',
      '[data-testid="copilot-assistant-toolbar"] button',
      '[data-testid="branch-prev"]',
      '[data-testid="branch-next"]',
      '[data-testid="thread-rename"]',
      '[data-testid="thread-archive"]',
      '[data-testid="thread-delete"]',
      '[data-testid="thread-title"]',
      '[data-testid="toggle-panels"]',
    ];
    for (const selector of controls) {
      const sizes = await size(page, selector);
      expect(sizes.length, selector).toBeGreaterThan(0);
      for (const s of sizes) expect(Math.min(s.width, s.height), selector).toBeGreaterThanOrEqual(24);
    }
    await page.close();
  });

  it("Escape stops a run", async () => {
    const page = await app.browser.newPage();
    await openApp(page, app.server.url);
    await send(page, "Make a plan to launch the website");
    await page.getByTestId("cancel-button").waitFor({ timeout: 20_000 });
    await waitForStatus(page, "RUNNING");
    expect(await page.getByTestId("cancel-button").getAttribute("aria-keyshortcuts")).toBe("Escape");
    await page.keyboard.press("Escape");
    await waitForStatus(page, "CANCELLED");
    await page.close();
  });
});
