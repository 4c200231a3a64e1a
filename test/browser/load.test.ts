/**
 * A load of the app: every request it makes is made once (the issue saw /api/copilotkit/info
 * twice and the thread three times per load), and the first paint is the page's skeleton and
 * "Loading…", not a blank page, before any script has run and while the runtime has not
 * answered. The time to a usable input under 4x CPU throttling is measured and printed (the
 * figures are in docs/app.md), never asserted.
 */
import { loadavg } from "node:os";
import type { Page, Request } from "playwright-core";
import { expect, it } from "vitest";
import { describeBrowser, launchBrowser, openApp, screenshot, send, useApp, waitForStatus } from "./harness.ts";

const READY = '[data-testid="chat-input"][data-enabled="true"]';

/**
 * The app's /api requests from now until the thread list's first poll (it asks every 4 s): by
 * then the load is over, and every request of it is counted. By method and path, ids as `:id`.
 */
function countRequests(page: Page): { done: Promise<void>; counts: Map<string, number> } {
  const counts = new Map<string, number>();
  let lists = 0;
  let poll!: () => void;
  const done = new Promise<void>((resolve) => {
    poll = resolve;
  });
  const onRequest = (r: Request) => {
    const url = new URL(r.url());
    if (!url.pathname.startsWith("/api/")) return;
    const path = url.pathname.replace(/\/threads\/[^/]+/, "/threads/:id");
    const key = `${r.method()} ${path}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    if (key === "GET /api/threads" && ++lists === 2) {
      counts.set(key, 1); // the poll itself is not part of the load
      page.off("request", onRequest);
      poll();
    }
  };
  page.on("request", onRequest);
  return { done, counts };
}

describeBrowser("loading the app", () => {
  const app = useApp();

  it("each request of a load is made once: a new thread, and a reload of one with a conversation", async () => {
    const page = await app.browser.newPage();
    const fresh = countRequests(page);
    await openApp(page, app.server.url);
    await fresh.done;
    const once = (counts: Map<string, number>) => [...counts].filter(([, n]) => n > 1);
    expect(once(fresh.counts)).toEqual([]);
    // A new thread is not on the server yet: the app asks nothing about it.
    expect(fresh.counts.get("GET /api/threads/:id")).toBeUndefined();
    expect(fresh.counts.get("GET /api/copilotkit/info")).toBe(1);

    await send(page, "Hello there");
    await waitForStatus(page, "WAITING");
    const reload = countRequests(page);
    await page.reload();
    await page.locator(READY).waitFor();
    await page.getByTestId("copilot-assistant-message").first().waitFor();
    await reload.done;
    console.log(`a reload's requests: ${[...reload.counts].map(([k, n]) => `${k} ×${n}`).join(", ")}`);
    expect(once(reload.counts)).toEqual([]);
    for (const key of ["GET /api/agents", "GET /api/copilotkit/info", "GET /api/threads/:id", "GET /api/threads/:id/events", "POST /api/copilotkit/agent/default/connect"]) {
      expect(reload.counts.get(key), key).toBe(1);
    }
    await page.close();
  }, 90_000);

  it("the first paint is the skeleton and Loading…, before the scripts run and until the runtime answers", async () => {
    const page = await app.browser.newPage();
    // The app's scripts and CopilotKit's /info are held until the page has been looked at.
    let releaseScripts!: () => void;
    const scriptsHeld = new Promise<void>((r) => {
      releaseScripts = r;
    });
    await page.route(/\/assets\/index-[\w-]+\.js$/, async (route) => {
      await scriptsHeld;
      await route.continue();
    });
    let releaseInfo!: () => void;
    const infoHeld = new Promise<void>((r) => {
      releaseInfo = r;
    });
    await page.route("**/api/copilotkit/info", async (route) => {
      await infoHeld;
      await route.continue();
    });
    void page.goto(app.server.url).catch(() => undefined);
    const skeleton = page.getByTestId("skeleton");
    await skeleton.waitFor();
    expect(await skeleton.textContent()).toContain("Loading…");
    expect(await page.getByTestId("app").count()).toBe(0);
    await screenshot(page, "load-1-skeleton");

    releaseScripts();
    // The app is up, its threads column drawn; the chat keeps its skeleton until the runtime answers.
    const chatSkeleton = page.getByTestId("chat-skeleton");
    await chatSkeleton.waitFor();
    await page.getByTestId("thread-list").waitFor();
    expect(await chatSkeleton.textContent()).toContain("Loading…");
    expect(await page.getByTestId("copilot-chat-textarea").count()).toBe(0);
    await screenshot(page, "load-2-chat-skeleton");

    releaseInfo();
    await page.locator(READY).waitFor();
    expect(await chatSkeleton.count()).toBe(0);
    await page.close();
  }, 60_000);

  it("measures the first load's time to a usable input under 4x CPU throttling (printed, not asserted)", async () => {
    const times: { paint: number; input: number; script: number; layout: number; task: number }[] = [];
    for (let round = 0; round < 3; round++) {
      // A new profile each time: nothing cached, as a first visit.
      const browser = await launchBrowser();
      try {
        const page = await browser.newPage();
        const cdp = await page.context().newCDPSession(page);
        await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
        // Where the main thread's time went (Chromium's own counters, in seconds, throttled).
        await cdp.send("Performance.enable");
        await page.addInitScript(`new MutationObserver((_, o) => {
          if (document.querySelector('${READY}')) { window.__usable = performance.now(); o.disconnect(); }
        }).observe(document, { subtree: true, childList: true, attributes: true });`);
        await openApp(page, app.server.url);
        const t = (await page.evaluate(`({ input: window.__usable, paint: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? -1 })`)) as { paint: number; input: number };
        const { metrics } = (await cdp.send("Performance.getMetrics")) as { metrics: { name: string; value: number }[] };
        const ms = (name: string) => Math.round((metrics.find((m) => m.name === name)?.value ?? 0) * 1000);
        times.push({ ...t, script: ms("ScriptDuration"), layout: ms("LayoutDuration") + ms("RecalcStyleDuration"), task: ms("TaskDuration") });
      } finally {
        await browser.close();
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    console.log(
      `first load under 4x CPU throttling (3 rounds, load average ${loadavg().map((l) => l.toFixed(1)).join(" ")}): ` +
        `first paint ${times.map((t) => Math.round(t.paint)).join("/")} ms, usable input ${times.map((t) => Math.round(t.input)).join("/")} ms (median ${Math.round(median(times.map((t) => t.input)))} ms); ` +
        `main thread busy ${times.map((t) => t.task).join("/")} ms, of it script ${times.map((t) => t.script).join("/")} ms, style and layout ${times.map((t) => t.layout).join("/")} ms`,
    );
    expect(times.every((t) => t.input > 0)).toBe(true);
  }, 240_000);
});
