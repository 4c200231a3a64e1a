/**
 * Subagent runs nested in the chat, on the offline demo model: the `subagents` page's lead hands
 * a question to its researcher and fact checker at once; each call is a card with the child's
 * name, status, task and streamed answer inside, working then done; no child message is ever a
 * top-level turn (a watcher in the page records every turn drawn, from the first paint on, and
 * the thread's own API says which messages are a child's); the lead's answer follows; a reload
 * shows the same. On the demo page and in the main chat, on a desktop and on a phone (a tapped
 * suggestion); screenshots of both.
 */
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { subagentsAgent } from "../../server/agents/demos/subagents.ts";
import { axeViolations, blocking } from "./axe.ts";
import { assistantMessages, consoleErrors, describeBrowser, launchBrowser, openApp, PHONE, send, useApp, waitForStatus } from "./harness.ts";

/** Where the screenshots go (a temp dir, printed), to be looked at. */
const SHOTS = path.join(tmpdir(), "threadline-subagents-screenshots");

/**
 * Records, on every change of the page, each top-level turn drawn (not inside a subagent's card)
 * and each subagent card's status with whether its answer had text yet. A string: this file is
 * type-checked without the DOM library.
 */
const WATCHER = `
window.__seen = { turns: [], cards: [] };
const note = (list, key) => { if (!list.includes(key)) list.push(key); };
new MutationObserver(() => {
  for (const el of document.querySelectorAll('[data-testid="copilot-user-message"], [data-testid="copilot-assistant-message"]')) {
    if (el.closest('[data-testid="subagent-card"]')) continue;
    note(window.__seen.turns, el.getAttribute("data-testid") + "|" + el.getAttribute("data-message-id") + "|" + (el.textContent || "").slice(0, 60));
  }
  for (const c of document.querySelectorAll('[data-testid="subagent-card"]')) {
    const text = (c.querySelector('[data-testid="subagent-message"]')?.textContent || "").trim();
    note(window.__seen.cards, c.getAttribute("data-tool-call-id") + "|" + c.getAttribute("data-status") + "|" + (text ? "text" : "empty"));
  }
}).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
`;

interface Seen {
  turns: string[];
  cards: string[];
}

const QUESTION = "Why is the sky blue?";

describeBrowser("subagent runs nested in the browser", () => {
  // The main chat's agent (`/`) is the same lead here: the app's own chat, not the demo page's
  // renderers, must nest its children too.
  const app = useApp({ agents: [{ ...subagentsAgent(), id: "default" }] });
  const api = async <T,>(p: string) => (await (await fetch(`${app.server.url}${p}`)).json()) as T;
  const cards = (page: Page) => page.getByTestId("subagent-card");

  async function shoot(page: Page, name: string): Promise<void> {
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: false });
  }

  /** Both cards done, each with its task and its own answer nested; the lead's answer after them; no child message a turn, ever. */
  async function expectNested(page: Page, threadId: string): Promise<void> {
    await expect.poll(() => cards(page).count(), { timeout: 20_000 }).toBe(2);
    await expect.poll(() => cards(page).evaluateAll((els) => els.map((e) => e.getAttribute("data-status"))), { timeout: 20_000 }).toEqual(["done", "done"]);
    expect(await cards(page).getByTestId("subagent-name").allTextContents()).toEqual(["Researcher", "Fact checker"]);
    const tasks = await cards(page).getByTestId("subagent-task").allTextContents();
    expect(tasks[0]).toContain(`Research this question and list what you find: ${QUESTION}`);
    expect(tasks[1]).toContain(`Check this question for common mistakes: ${QUESTION}`);
    await expect.poll(() => cards(page).nth(0).getByTestId("subagent-message").textContent()).toContain("What the standard explanation");
    await expect.poll(() => cards(page).nth(1).getByTestId("subagent-message").textContent()).toContain("is well established");
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("My two helpers worked on it at the same time.");

    const { messages } = await api<{ messages: { id: string; role: string; subagentRunId?: string }[] }>(`/api/threads/${threadId}`);
    const childIds = messages.filter((m) => m.subagentRunId).map((m) => m.id);
    expect(childIds.length).toBeGreaterThanOrEqual(4); // two tasks, two answers
    const seen = (await page.evaluate("window.__seen")) as Seen;
    const drawn = seen.turns.map((t) => t.split("|"));
    expect(drawn.filter(([, id]) => childIds.includes(id!))).toEqual([]);
    expect(drawn.filter(([kind]) => kind === "copilot-user-message").map(([, , text]) => text)).toEqual([QUESTION]);
    // The parent's own turns only: its question, its calls' message, its answer.
    expect(await page.locator('[data-testid="copilot-user-message"]').count()).toBe(1);
    for (const id of childIds) expect(await page.locator(`[data-message-id="${id}"]:not([data-testid="subagent-card"] *)`).count()).toBe(0);
  }

  it("on a desktop: both calls are cards, working then done, their answers nested and streamed; the same after a reload", async () => {
    const page = await app.browser.newPage();
    await page.addInitScript(WATCHER);
    const threadId = await openApp(page, app.server.url, { feature: "subagents" });
    await send(page, QUESTION);
    // A picture of the children at work, when the shot is quick enough to catch it (the watcher
    // below is what asserts that they streamed while working).
    const streaming = page.locator('[data-testid="subagent-card"][data-status="working"] [data-testid="subagent-message"]');
    if (await streaming.first().waitFor({ timeout: 20_000 }).then(() => true, () => false)) await shoot(page, "desktop-working");
    await waitForStatus(page, "WAITING", 30_000);
    await expectNested(page, threadId);
    const ids = await cards(page).evaluateAll((els) => els.map((e) => e.getAttribute("data-tool-call-id")!));
    const live = ((await page.evaluate("window.__seen")) as Seen).cards;
    // Live: each card was seen working with its answer already streaming into it, then done.
    for (const id of ids) {
      expect(live).toContain(`${id}|working|text`);
      expect(live).toContain(`${id}|done|text`);
    }
    await expect.poll(() => page.getByTestId("subagent-log-item").evaluateAll((els) => els.map((e) => e.getAttribute("data-status")))).toEqual(["done", "done"]);
    expect(blocking(await axeViolations(page))).toEqual([]);
    await cards(page).first().scrollIntoViewIfNeeded();
    await shoot(page, "desktop-done");

    await page.reload();
    await waitForStatus(page, "WAITING");
    await expectNested(page, threadId);
    expect(await cards(page).evaluateAll((els) => els.map((e) => e.getAttribute("data-tool-call-id")!))).toEqual(ids);
    await shoot(page, "desktop-reloaded");
    expect(consoleErrors(page)).toEqual([]);
    await page.close();
  });

  it("in the main chat (no page renderers): the calls become the children's cards, nothing of theirs a turn, before and after a reload", async () => {
    const page = await app.browser.newPage();
    await page.addInitScript(WATCHER);
    const threadId = await openApp(page, app.server.url);
    expect(await page.getByTestId("app").getAttribute("data-agent")).toBe("default");
    await send(page, QUESTION);
    await waitForStatus(page, "WAITING", 30_000);
    await expectNested(page, threadId);
    await page.reload();
    await waitForStatus(page, "WAITING");
    await expectNested(page, threadId);
    await shoot(page, "main-chat-reloaded");
    expect(consoleErrors(page)).toEqual([]);
    await page.close();
  });

  it("on a phone: a tapped suggestion runs both subagents, nested the same, before and after a reload", async () => {
    const phone = await launchBrowser(PHONE);
    try {
      const page = await phone.newPage();
      await page.addInitScript(WATCHER);
      const threadId = await openApp(page, app.server.url, { feature: "subagents" });
      await page.getByTestId("suggestion").filter({ hasText: QUESTION }).tap();
      await waitForStatus(page, "WAITING", 30_000);
      await expectNested(page, threadId);
      await cards(page).first().scrollIntoViewIfNeeded();
      await shoot(page, "phone-done");
      const width = await page.evaluate("document.documentElement.scrollWidth");
      expect(width).toBeLessThanOrEqual(PHONE.viewport.width); // nothing wider than the screen
      await page.reload();
      await waitForStatus(page, "WAITING");
      await expectNested(page, threadId);
      await shoot(page, "phone-reloaded");
      expect(consoleErrors(page)).toEqual([]);
    } finally {
      await phone.close();
    }
  });
});

console.info(`[subagents] screenshots in ${SHOTS}`);
