/**
 * Two tabs on one thread, as a person uses them: a run started in one tab (or through the API)
 * appears in the other without a reload; a tab that missed an exchange and sends is told so
 * (409 STALE_HISTORY), catches up and offers to send again; nothing disappears from the thread.
 */
import { randomUUID } from "node:crypto";
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { assistantMessages, describeBrowser, openApp, screenshot, send, useApp, waitForStatus } from "./harness.ts";

interface ThreadJson {
  branch: string;
  branches: unknown[];
  messages: { id: string; role: string; content?: unknown }[];
}

const userTexts = (page: Page) => page.getByTestId("copilot-user-message").allTextContents();

describeBrowser("tabs on one thread", () => {
  const app = useApp();
  const thread = async (threadId: string) => (await (await fetch(`${app.server.url}/api/threads/${threadId}`)).json()) as ThreadJson;
  const userContents = async (threadId: string) => (await thread(threadId)).messages.filter((m) => m.role === "user").map((m) => m.content);

  it("a run started in one tab, or through the API, appears in the other without a reload", { timeout: 180_000 }, async () => {
    const a = await app.browser.newPage();
    const threadId = await openApp(a, app.server.url);
    await send(a, "hello from tab A, 0");
    await waitForStatus(a, "WAITING");
    const b = await app.browser.newPage();
    await openApp(b, app.server.url, { threadId });
    await expect.poll(() => userTexts(b), { timeout: 20_000 }).toEqual([expect.stringContaining("tab A, 0")]);

    // Short runs, one after the other, each started in A: B shows each as it lands.
    for (let i = 1; i <= 3; i++) {
      await send(a, `hello from tab A, ${i}`);
      await waitForStatus(a, "WAITING");
      await expect.poll(async () => (await userTexts(b)).at(-1), { timeout: 20_000 }).toContain(`tab A, ${i}`);
      await expect.poll(() => assistantMessages(b).count(), { timeout: 20_000 }).toBe(i + 1);
    }
    // And the other way round.
    await send(b, "hello from tab B");
    await expect.poll(async () => (await userTexts(a)).at(-1), { timeout: 20_000 }).toContain("tab B");
    await expect.poll(() => assistantMessages(a).count(), { timeout: 20_000 }).toBe(5);

    // A run through the raw HTTP API, as any client would send it: both tabs show it. B's run
    // first settles (its answer shows in A before its end is committed).
    await waitForStatus(b, "WAITING");
    await expect.poll(async () => ((await thread(threadId)) as unknown as { status: string }).status, { timeout: 20_000 }).toBe("WAITING");
    const before = await thread(threadId);
    const res = await fetch(`${app.server.url}/api/agents/default/run`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify({ threadId, runId: randomUUID(), state: {}, tools: [], context: [], forwardedProps: {}, messages: [...before.messages, { id: randomUUID(), role: "user", content: "hello from the API" }] }),
    });
    const body = await res.text();
    expect(res.status, body).toBe(200);
    expect(body).toContain("RUN_FINISHED");
    for (const page of [a, b]) {
      await expect.poll(async () => (await userTexts(page)).at(-1), { timeout: 20_000 }).toContain("hello from the API");
      await expect.poll(() => assistantMessages(page).count(), { timeout: 20_000 }).toBe(6);
    }
    await screenshot(b, "40-tab-b-follows");
    expect(await userContents(threadId)).toHaveLength(6);
    await a.close();
    await b.close();
  });

  it("a stale tab's message is refused, the tab catches up and offers it again; nothing disappears", { timeout: 180_000 }, async () => {
    const a = await app.browser.newPage();
    const threadId = await openApp(a, app.server.url);
    await send(a, "first question");
    await waitForStatus(a, "WAITING");
    // Tab B has no live feed of the thread (a sleeping laptop, a proxy that drops it): it goes stale.
    const b = await app.browser.newPage();
    await b.route("**/api/threads/*/events**", (route) => route.abort());
    await openApp(b, app.server.url, { threadId });
    await expect.poll(() => userTexts(b), { timeout: 20_000 }).toHaveLength(1);
    await send(a, "second question, from tab A");
    await waitForStatus(a, "WAITING");
    // B still shows the old thread (the feed is gone), and its person types a message.
    expect(await userTexts(b)).toHaveLength(1);
    await send(b, "third question, from the stale tab");
    await b.getByTestId("unsent").waitFor({ timeout: 20_000 });
    expect(await b.getByTestId("unsent-text").textContent()).toContain("third question");
    // Caught up: B shows A's exchange, and the refused message is not in the chat.
    await expect.poll(() => userTexts(b), { timeout: 20_000 }).toEqual([expect.stringContaining("first"), expect.stringContaining("second question")]);
    await screenshot(b, "41-stale-tab-offers-resend");
    // Nothing was written by the refused run, and nothing disappeared.
    expect(await userContents(threadId)).toEqual(["first question", "second question, from tab A"]);
    expect((await thread(threadId)).branches).toHaveLength(1);

    await b.getByTestId("unsent-resend").click();
    await expect.poll(async () => (await userTexts(b)).at(-1), { timeout: 20_000 }).toContain("third question");
    await expect.poll(() => userContents(threadId), { timeout: 20_000 }).toEqual(["first question", "second question, from tab A", "third question, from the stale tab"]);
    await expect.poll(() => assistantMessages(b).count(), { timeout: 20_000 }).toBe(3);
    expect(await b.getByTestId("unsent").count()).toBe(0);
    // A, which kept its feed, follows.
    await expect.poll(async () => (await userTexts(a)).at(-1), { timeout: 20_000 }).toContain("third question");
    const after = await thread(threadId);
    expect(after.branch).toBe("main");
    expect(after.branches).toHaveLength(1);
    await screenshot(b, "42-stale-tab-resent");
    await a.close();
    await b.close();
  });
});
