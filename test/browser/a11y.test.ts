/**
 * Keyboard and screen-reader use of the app: axe-core finds no critical or serious violation on
 * any page (the Threadline agent's, each demo's, the coding agent's, the v1 page), before and
 * after a conversation; the input is a few Tabs away, has a visible focus ring, and has the
 * focus back after each run; every thread in the list is reachable by Tab and opens with Enter.
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { axeViolations, blocking } from "./axe.ts";
import { describeBrowser, openApp, send, useApp, waitForStatus } from "./harness.ts";

/** What has the focus: its test id, id, or tag (a string: this file has no DOM types). */
const focused = (page: Page) =>
  page.evaluate(`(() => { const a = document.activeElement; return a?.dataset?.testid || a?.id || a?.closest("[data-testid]")?.dataset.testid || a?.tagName; })()`) as Promise<string>;

/** Presses Tab until `target` has the focus; how many presses it took (Infinity: never, within `max`). */
async function tabsTo(page: Page, target: string, max: number): Promise<number> {
  for (let n = 1; n <= max; n++) {
    await page.keyboard.press("Tab");
    if ((await focused(page)) === target) return n;
  }
  return Number.POSITIVE_INFINITY;
}

describeBrowser("keyboard and accessibility", () => {
  const app = useApp();

  it("the keyboard: the input is one Tab and Enter away (or five Tabs), with a visible ring; the focus is back in it after each run; every thread is reachable", async () => {
    const page = await app.browser.newPage();
    const first = await openApp(page, app.server.url);
    await page.keyboard.press("Tab");
    expect(await focused(page)).toBe("skip-to-input");
    const skip = await page.getByTestId("skip-to-input").boundingBox();
    expect(skip!.y).toBeGreaterThanOrEqual(0);
    await page.keyboard.press("Enter");
    expect(await focused(page)).toBe("copilot-chat-textarea");
    // The input's rounded box draws the ring, in the accent colour (#4f46e5).
    expect(await page.evaluate(`getComputedStyle(document.querySelector(".chat-input .copilotKitInput")).boxShadow`)).toContain("rgb(79, 70, 229)");

    // Without the skip link: the chat comes first after the top bar; the input's "+" (attach
    // images, issue 32) is the one stop before its text box.
    await page.reload();
    await page.locator('[data-testid="chat-input"][data-enabled="true"]').waitFor();
    expect(await tabsTo(page, "copilot-chat-textarea", 10)).toBeLessThanOrEqual(5);

    // A run takes the input away; its end gives the focus back, every time.
    for (const text of ["Hello there", "Add a task: water the plants"]) {
      await page.keyboard.type(text);
      await page.keyboard.press("Enter");
      await waitForStatus(page, "RUNNING").catch(() => undefined);
      await waitForStatus(page, "WAITING");
      await expect.poll(() => focused(page)).toBe("copilot-chat-textarea");
    }

    // A link and a button show a ring when the keyboard reaches them.
    await page.keyboard.press("Shift+Tab");
    const ring = await page.evaluate(`(() => { const s = getComputedStyle(document.activeElement); return [s.outlineStyle, parseFloat(s.outlineWidth)]; })()`) as [string, number];
    expect(ring[0]).not.toBe("none");
    expect(ring[1]).toBeGreaterThanOrEqual(2);

    // A new thread, then back to the first by keyboard alone.
    await page.getByTestId("new-thread").focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => page.url()).not.toContain(first);
    await page.locator(`[data-testid="thread-item"][data-thread-id="${first}"] [data-testid="thread-title"]`).waitFor();
    await page.getByTestId("new-thread").focus();
    let reached = false;
    for (let n = 0; n < 10 && !reached; n++) {
      await page.keyboard.press("Tab");
      // The thread's title is its button that opens it (Rename, Archive and Delete follow it).
      reached = (await page.evaluate(`document.activeElement?.dataset.testid === "thread-title" && document.activeElement.closest('[data-testid="thread-item"]')?.dataset.threadId`)) === first;
    }
    expect(reached).toBe(true);
    await page.keyboard.press("Enter");
    await page.waitForURL((u) => u.pathname.endsWith(`/t/${first}`));
    await page.close();
  }, 90_000);

  it("axe-core: no critical or serious violation on any page of the app", async () => {
    const found: Record<string, string[]> = {};
    const page = await app.browser.newPage();
    await openApp(page, app.server.url);
    // Every page the Agents picker offers (the demos and the coding agent).
    const slugs = (await page.getByTestId("demo-link").evaluateAll((links) => links.map((a) => a.getAttribute("data-feature")))).filter((s): s is string => !!s);
    expect(slugs.length).toBeGreaterThan(5);
    for (const feature of [undefined, ...slugs]) {
      await openApp(page, app.server.url, { feature });
      found[feature ?? "/"] = blocking(await axeViolations(page));
    }
    await page.goto(`${app.server.url}/v1`);
    await page.getByTestId("v1-page").waitFor();
    await page.locator("textarea").first().waitFor();
    found["/v1"] = blocking(await axeViolations(page));
    // A conversation adds messages, their toolbars and the thread to the list.
    await openApp(page, app.server.url);
    await send(page, "Hello there");
    await waitForStatus(page, "WAITING");
    await page.getByTestId("copilot-assistant-message").first().waitFor();
    found["/ after a reply"] = blocking(await axeViolations(page));
    await page.close();
    expect(Object.entries(found).filter(([, v]) => v.length > 0)).toEqual([]);
  }, 180_000);
});
