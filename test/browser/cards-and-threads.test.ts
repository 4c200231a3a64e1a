/**
 * Cards that keep what they showed, and the thread list, in the browser: two plans' cards each
 * show their own run's steps (live and after a reload); a coding edit card and a terminal card
 * show after a reload the hunk and the colours they showed live; the thread list titles threads
 * by their first message, renames, searches, archives and deletes them (after the Undo's time), and marks the one
 * waiting for an answer.
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { describeBrowser, openApp, screenshot, send, useApp, waitForStatus } from "./harness.ts";

describeBrowser("cards and the thread list in the browser", () => {
  const app = useApp();
  const planCards = (page: Page) => page.locator('[data-testid="tool-card"][data-tool="generate_task_steps_generative_ui"]');
  const stepsOf = (page: Page, n: number) => planCards(page).nth(n).getByTestId("plan-step").allTextContents();

  it("two plans' cards each show their own run's steps, live and after a reload", async () => {
    const page = await app.browser.newPage();
    await openApp(page, app.server.url, { feature: "agentic-generative-ui" });
    await send(page, "Make a plan to launch the website");
    await waitForStatus(page, "WAITING", 30_000);
    await expect.poll(() => planCards(page).first().getByTestId("plan-steps").getAttribute("data-done"), { timeout: 20_000 }).toBe(
      await planCards(page).first().getByTestId("plan-steps").getAttribute("data-total"),
    );
    const first = await stepsOf(page, 0);
    await send(page, "Help me move house");
    await waitForStatus(page, "WAITING", 30_000);
    await expect.poll(() => planCards(page).count(), { timeout: 20_000 }).toBe(2);
    await expect.poll(() => stepsOf(page, 1), { timeout: 20_000 }).not.toEqual(first);
    const second = await stepsOf(page, 1);
    // The first card still shows the first plan, though the state now holds the second.
    await expect.poll(() => stepsOf(page, 0), { timeout: 20_000 }).toEqual(first);
    await screenshot(page, "44a-two-plan-cards-live");

    await page.reload();
    await waitForStatus(page, "WAITING");
    await expect.poll(() => planCards(page).count(), { timeout: 20_000 }).toBe(2);
    await expect.poll(() => stepsOf(page, 0), { timeout: 20_000 }).toEqual(first);
    await expect.poll(() => stepsOf(page, 1), { timeout: 20_000 }).toEqual(second);
    await planCards(page).first().scrollIntoViewIfNeeded();
    await screenshot(page, "44b-two-plan-cards-after-reload");
    await page.close();
  });

  it("a coding edit card and a terminal card show after a reload the hunk and colours they showed live", async () => {
    const page = await app.browser.newPage();
    await openApp(page, app.server.url, { feature: "coding" });
    await send(page, "Write hello.py, run it, then change the greeting and run it again");
    await waitForStatus(page, "WAITING", 60_000);
    const edit = page.locator('[data-testid="tool-card"][data-tool="edit"]');
    const bash = page.locator('[data-testid="tool-card"][data-tool="bash"]').first();
    await edit.getByTestId("diff").waitFor({ timeout: 20_000 });
    await expect.poll(() => bash.getByTestId("exit-code").getAttribute("data-exit"), { timeout: 20_000 }).toBe("0");
    const drawn = async () => ({
      hunk: await edit.locator(".diff-hunk").allTextContents(),
      rows: await edit.locator("[data-kind]").evaluateAll((rows) => rows.map((r) => `${r.getAttribute("data-kind")}|${r.textContent}`)),
      colours: await bash.locator("[data-ansi]").evaluateAll((spans) => spans.map((s) => `${s.textContent}|${s.getAttribute("style")}`)),
      stderr: await bash.locator('[data-stream="stderr"]').allTextContents(),
    });
    const live = await drawn();
    // The real hunk: context lines around the change, numbered where they are in the file.
    expect(live.rows.filter((r) => r.startsWith("ctx|")).length).toBeGreaterThan(0);
    expect(live.hunk[0]).not.toMatch(/^@@ -1,1 \+1,1 @@/);
    expect(live.colours.some((c) => c.includes("Hello, world!") && c.includes("color: rgb(0, 187, 0)"))).toBe(true);
    await edit.scrollIntoViewIfNeeded();
    await screenshot(page, "45a-coding-edit-live");

    await page.reload();
    await waitForStatus(page, "WAITING");
    await edit.getByTestId("diff").waitFor({ timeout: 20_000 });
    await expect.poll(drawn, { timeout: 20_000 }).toEqual(live);
    await edit.scrollIntoViewIfNeeded();
    await screenshot(page, "45b-coding-edit-after-reload");
    await bash.scrollIntoViewIfNeeded();
    await screenshot(page, "45c-coding-terminal-after-reload");
    await page.close();
  }, 150_000);

  it("the thread list: titles, a thread waiting for you, rename, search, archive and delete", async () => {
    const page = await app.browser.newPage();
    const waiting = await openApp(page, app.server.url);
    await send(page, "Delete the old drafts"); // the demo model asks for an approval
    await page.locator('[data-testid="approval-card"][data-state="asking"]').waitFor({ timeout: 20_000 });
    await waitForStatus(page, "WAITING");
    await page.getByTestId("new-thread").click();
    await page.locator('[data-testid="chat-input"][data-enabled="true"]').waitFor();
    const idle = decodeURIComponent(new URL(page.url()).pathname.split("/t/")[1]!);
    await send(page, "What's the weather in Paris?");
    await waitForStatus(page, "WAITING", 30_000);

    const item = (id: string) => page.locator(`[data-testid="thread-item"][data-thread-id="${id}"]`);
    await expect.poll(() => item(waiting).getAttribute("data-waiting"), { timeout: 20_000 }).toBe("true");
    expect(await item(waiting).getByTestId("waiting-for-you").textContent()).toBe("Waiting for you");
    expect(await item(idle).getAttribute("data-waiting")).toBe("false");
    await expect.poll(() => item(idle).getByTestId("thread-title").textContent()).toBe("What's the weather in Paris?");
    await screenshot(page, "46a-thread-list-titles-waiting");

    // Rename, typed as a person does.
    await item(idle).getByTestId("thread-rename").click();
    const box = item(idle).getByTestId("thread-rename-input");
    await box.fill("Paris trip");
    await box.press("Enter");
    await expect.poll(() => item(idle).getByTestId("thread-title").textContent(), { timeout: 10_000 }).toBe("Paris trip");

    // Search by title.
    await page.getByTestId("thread-search").fill("paris t");
    await expect.poll(() => page.locator('[data-testid="thread-item"]').evaluateAll((els) => els.map((e) => e.getAttribute("data-thread-id"))), { timeout: 10_000 }).toEqual([idle]);
    await screenshot(page, "46b-thread-list-search");
    await page.getByTestId("thread-search").fill("");

    // Archive the waiting one: it leaves the list, and is under Archived.
    await item(waiting).getByTestId("thread-archive").click();
    await expect.poll(() => item(waiting).count(), { timeout: 10_000 }).toBe(0);
    await page.getByTestId("show-archived").check();
    await expect.poll(() => item(waiting).getAttribute("data-archived"), { timeout: 10_000 }).toBe("true");
    await screenshot(page, "46c-thread-list-archived");

    // Delete it: the row goes at once, the DELETE once its Undo is past (thread-list.test.ts: the Undo).
    const deleted = page.waitForResponse((r) => r.request().method() === "DELETE" && r.url().includes(waiting), { timeout: 30_000 });
    await item(waiting).getByTestId("thread-delete").click();
    await expect.poll(() => item(waiting).count(), { timeout: 10_000 }).toBe(0);
    expect((await deleted).status()).toBe(204);
    expect((await fetch(`${app.server.url}/api/threads/${waiting}`)).status).toBe(404);
    await page.close();
  });
});
