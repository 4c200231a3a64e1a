/**
 * A thread list a person can trust (issue 32, deliver 7), in the browser: the tab is titled after
 * the thread; Rename opens on the current title, selected, so typing replaces it (by keyboard);
 * a search that finds nothing says so; Delete hides the row and offers Undo before any DELETE is
 * sent (Undo by keyboard and by mouse, the page's own thread included: the page comes back to
 * it), and the DELETE goes once the toast is gone; an archived thread opened by its address
 * shows as itself, archived, not as "New conversation". On a phone: Delete and Undo by taps,
 * the toast above the chat though the drawer closed. axe on every state added.
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { axeViolations, blocking } from "./axe.ts";
import { describeBrowser, openApp, PHONE, screenshot, send, useApp, waitForStatus } from "./harness.ts";

const item = (page: Page, id: string) => page.locator(`[data-testid="thread-item"][data-thread-id="${id}"]`);
const threadOf = (page: Page) => decodeURIComponent(new URL(page.url()).pathname.split("/t/")[1]!);
/** What has the focus: its test id (a string: this file has no DOM types). */
const focused = (page: Page) => page.evaluate(`document.activeElement?.dataset?.testid ?? document.activeElement?.tagName`) as Promise<string>;

/** The DELETEs the page sent, by thread id, in order. */
function recordDeletes(page: Page): string[] {
  const sent: string[] = [];
  page.on("request", (r) => {
    if (r.method() === "DELETE") sent.push(decodeURIComponent(new URL(r.url()).pathname.split("/api/threads/")[1]!));
  });
  return sent;
}

async function axeClean(page: Page): Promise<void> {
  expect(blocking(await axeViolations(page))).toEqual([]);
}

describeBrowser("a thread list a person can trust", () => {
  const app = useApp();
  const status = async (id: string) => (await fetch(`${app.server.url}/api/threads/${encodeURIComponent(id)}`)).status;

  it("tab title, rename pre-filled, an empty search, delete with Undo, an archived thread by its address", async () => {
    const page = await app.browser.newPage();
    const deletes = recordDeletes(page);
    const paris = await openApp(page, app.server.url);
    expect(await page.title()).toBe("New conversation · Threadline");
    await send(page, "What's the weather in Paris?");
    await waitForStatus(page, "WAITING", 30_000);
    await expect.poll(() => page.title(), { timeout: 20_000 }).toBe("What's the weather in Paris? · Threadline");

    // Rename by keyboard: Tab from the title to Rename, Enter; the box holds the title, all selected.
    await item(page, paris).getByTestId("thread-title").focus();
    await page.keyboard.press("Tab");
    expect(await focused(page)).toBe("thread-rename");
    await page.keyboard.press("Enter");
    const box = item(page, paris).getByTestId("thread-rename-input");
    expect(await box.inputValue()).toBe("What's the weather in Paris?");
    expect(await page.evaluate(`(() => { const el = document.activeElement; return [el.dataset.testid, el.selectionStart, el.selectionEnd]; })()`)).toEqual(["thread-rename-input", 0, 28]);
    await screenshot(page, "110-rename-prefilled");
    // Escape keeps the title; typing over the selection replaces it.
    await page.keyboard.press("Escape");
    expect(await item(page, paris).getByTestId("thread-title").textContent()).toBe("What's the weather in Paris?");
    await item(page, paris).getByTestId("thread-rename").click();
    await page.keyboard.type("Paris trip");
    await page.keyboard.press("Enter");
    await expect.poll(() => item(page, paris).getByTestId("thread-title").textContent(), { timeout: 10_000 }).toBe("Paris trip");
    await expect.poll(() => page.title(), { timeout: 10_000 }).toBe("Paris trip · Threadline");
    await item(page, paris).getByTestId("thread-rename").click();
    expect(await item(page, paris).getByTestId("thread-rename-input").inputValue()).toBe("Paris trip");
    await page.keyboard.press("Escape");

    // A search that finds nothing says so; one that finds the thread does not.
    await page.getByTestId("thread-search").fill("zebra crossing");
    await expect.poll(() => page.getByTestId("thread-list-empty").textContent(), { timeout: 10_000 }).toBe("No conversations match “zebra crossing”.");
    expect(await page.getByTestId("thread-item").count()).toBe(0);
    await screenshot(page, "111-search-nothing");
    await axeClean(page);
    await page.getByTestId("thread-search").fill("paris");
    await expect.poll(() => page.getByTestId("thread-item").count(), { timeout: 10_000 }).toBe(1);
    expect(await page.getByTestId("thread-list-empty").textContent()).toBe("");
    await page.getByTestId("thread-search").fill("");

    await page.getByTestId("new-thread").click();
    await page.locator('[data-testid="chat-input"][data-enabled="true"]').waitFor();
    const tasks = threadOf(page);
    await send(page, "Add a task: water the plants");
    await waitForStatus(page, "WAITING", 30_000);
    await expect.poll(() => item(page, tasks).getByTestId("thread-title").textContent(), { timeout: 20_000 }).toBe("Add a task: water the plants");

    // Delete another thread: its row goes, the toast has the focus on Undo; Enter brings it back.
    await item(page, paris).getByTestId("thread-delete").click();
    await expect.poll(() => item(page, paris).count()).toBe(0);
    await page.getByTestId("undo-toast").waitFor();
    // The quotes are the <q> element's (CSS), which innerText leaves out.
    expect(await page.getByTestId("undo-toast").innerText()).toContain("Deleted Paris trip");
    expect(await focused(page)).toBe("undo-delete");
    await screenshot(page, "112-delete-undo-toast");
    await axeClean(page);
    await page.keyboard.press("Enter");
    await page.getByTestId("undo-toast").waitFor({ state: "detached" });
    await item(page, paris).waitFor({ timeout: 10_000 });

    // Delete the page's own thread: a new one takes its place; Undo by mouse comes back to it.
    await item(page, tasks).getByTestId("thread-delete").click();
    await expect.poll(() => threadOf(page)).not.toBe(tasks);
    await page.getByTestId("undo-delete").click();
    await expect.poll(() => threadOf(page)).toBe(tasks);
    await waitForStatus(page, "WAITING");
    await item(page, tasks).waitFor({ timeout: 10_000 });

    // Archive the page's own thread: it stays in view, marked; opened by its address it is itself, archived.
    await item(page, tasks).getByTestId("thread-archive").click();
    await expect.poll(() => item(page, tasks).getAttribute("data-archived"), { timeout: 10_000 }).toBe("true");
    await page.getByTestId("thread-archived").waitFor({ timeout: 10_000 });
    await openApp(page, app.server.url, { threadId: tasks });
    await expect.poll(() => item(page, tasks).getByTestId("thread-title").textContent(), { timeout: 20_000 }).toBe("Add a task: water the plants");
    expect(await item(page, tasks).getByTestId("thread-item-archived").textContent()).toBe("Archived");
    expect(await page.getByTestId("thread-heading").textContent()).toBe("Add a task: water the plants");
    await page.getByTestId("thread-archived").waitFor();
    expect(await page.getByText("New conversation").count()).toBe(0);
    expect(await page.title()).toBe("Add a task: water the plants · Threadline");
    await screenshot(page, "113-archived-by-address");
    await axeClean(page);

    // The archived view with nothing matching says so too.
    await page.getByTestId("show-archived").check();
    await page.getByTestId("thread-search").fill("paris");
    await expect.poll(() => page.getByTestId("thread-list-empty").textContent(), { timeout: 10_000 }).toBe("No archived conversations match “paris”.");
    await page.getByTestId("thread-search").fill("");
    await page.getByTestId("show-archived").uncheck();

    // Nothing was deleted so far. Delete and let the toast go: then, and only then, the DELETE.
    expect(deletes).toEqual([]);
    expect(await status(paris)).toBe(200);
    const sent = page.waitForResponse((r) => r.request().method() === "DELETE" && r.url().includes(encodeURIComponent(paris)), { timeout: 30_000 });
    await item(page, paris).getByTestId("thread-delete").click();
    await page.getByTestId("undo-toast").waitFor();
    expect((await sent).status()).toBe(204);
    await page.getByTestId("undo-toast").waitFor({ state: "detached" });
    expect(await status(paris)).toBe(404);
    expect(deletes).toEqual([paris]);
    expect(await status(tasks)).toBe(200);
    await page.close();
  }, 150_000);
});

describeBrowser("a thread list on a phone", () => {
  const app = useApp({}, PHONE);

  it("rename pre-filled, and Delete then Undo by taps: the toast shows over the chat", async () => {
    const page = await app.browser.newPage();
    const deletes = recordDeletes(page);
    const id = await openApp(page, app.server.url);
    await send(page, "What's the weather in Paris?");
    await waitForStatus(page, "WAITING", 30_000);
    await page.getByTestId("toggle-nav").tap();
    await item(page, id).getByTestId("thread-rename").tap();
    expect(await item(page, id).getByTestId("thread-rename-input").inputValue()).toBe("What's the weather in Paris?");
    await screenshot(page, "114-phone-rename-prefilled");
    // Escape leaves the rename, not the drawer around it.
    await page.keyboard.press("Escape");
    await item(page, id).getByTestId("thread-rename").waitFor();
    expect(await page.getByTestId("app").getAttribute("data-drawer")).toBe("nav");
    await item(page, id).getByTestId("thread-delete").tap();
    // The page left the deleted thread, and its drawer closed with it; the toast is still there.
    await expect.poll(() => threadOf(page)).not.toBe(id);
    const toast = page.getByTestId("undo-toast");
    await toast.waitFor();
    const box = (await toast.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(box.y + box.height).toBeLessThanOrEqual(844);
    await screenshot(page, "115-phone-undo-toast");
    await axeClean(page);
    await page.getByTestId("undo-delete").tap();
    await expect.poll(() => threadOf(page)).toBe(id);
    await waitForStatus(page, "WAITING");
    expect(deletes).toEqual([]);
    await page.close();
  }, 120_000);
});
