/**
 * One status vocabulary (issue 32, deliver 3): the top bar, the thread list and the cards name a
 * thread's status with the same words and colours (status.ts), from one owner. Driven through
 * every status a person can meet: New, Starting…, Working…, Ready, Waiting for you (an approval),
 * Cancelled (Escape; Cancelling… when the cancel takes a moment), Failed (the demo model's failure
 * phrase) and Done (a tool that completes the conversation). A recorder in the page compares the header with the list's
 * row of the same thread at every change of the page, so neither ever lags the other; a second
 * tab, whose list has the thread as any other row, says the same once the thread settles.
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { defineAgent, defineTool } from "../../server/agents/define.ts";
import { forecast } from "../../server/agents/default-agent.ts";
import { DEMO_FAILURE_PROMPT, GetWeatherArgsSchema } from "../../server/demo/fixtures.ts";
import { describeBrowser, openApp, screenshot, send, useApp, waitForStatus } from "./harness.ts";

/** An agent whose get_weather ends the conversation (ToolContext.complete): its thread ends COMPLETED. */
const finisher = defineAgent({
  id: "finisher",
  description: "Answers one weather question, then the conversation is done.",
  instructions: "Use get_weather.",
  tools: [
    defineTool({
      name: "get_weather",
      description: "Current weather for a city.",
      inputSchema: GetWeatherArgsSchema,
      execute: ({ location }, ctx) => {
        ctx.complete();
        return forecast(location);
      },
    }),
  ],
});

interface Seen {
  status: string;
  label: string;
  tone: string;
}

/**
 * Records, at every change of the page, the header's status and the list row's of the header's
 * thread; a difference is kept in `__statusMismatches`. (A string: this file has no DOM types.)
 */
const RECORDER = `(() => {
  window.__statusSeen = [];
  window.__statusMismatches = [];
  const tone = (el) => [...(el?.classList ?? [])].find((c) => c.startsWith("chip-")) ?? "";
  const check = () => {
    const head = document.querySelector('[data-testid="thread-status"]');
    const id = document.querySelector('[data-testid="thread-heading"]')?.dataset.threadId;
    if (!head || !id) return;
    const row = [...document.querySelectorAll('[data-testid="thread-item"]')].find((r) => r.dataset.threadId === id);
    const seen = { status: head.dataset.status, label: head.dataset.label, tone: tone(head) };
    const last = window.__statusSeen.at(-1);
    if (!last || last.label !== seen.label || last.status !== seen.status) window.__statusSeen.push(seen);
    if (!row) return;
    const listed = { status: row.dataset.status, label: row.dataset.label, tone: tone(row.querySelector(".chip")) };
    if (listed.status !== seen.status || listed.label !== seen.label || listed.tone !== seen.tone) window.__statusMismatches.push({ header: seen, list: listed });
  };
  // An init script runs before the document has a body: observe once it does.
  const start = () => {
    new MutationObserver(check).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    check();
  };
  if (document.body) start();
  else addEventListener("DOMContentLoaded", start);
})()`;

const seen = (page: Page) => page.evaluate("window.__statusSeen") as Promise<Seen[]>;
const mismatches = (page: Page) => page.evaluate("window.__statusMismatches") as Promise<unknown[]>;
const header = async (page: Page): Promise<Seen> => {
  const el = page.getByTestId("thread-status");
  return { status: (await el.getAttribute("data-status"))!, label: (await el.getAttribute("data-label"))!, tone: (await el.getAttribute("class"))!.split(" ").find((c) => c.startsWith("chip-"))! };
};
/** The row of `threadId` in another tab's list: its words and tone, once listed. */
const rowOf = async (page: Page, threadId: string) => {
  const row = page.locator(`[data-testid="thread-item"][data-thread-id="${threadId}"]`);
  if ((await row.count()) === 0) return null;
  return { status: await row.getAttribute("data-status"), label: await row.getAttribute("data-label"), tone: (await row.locator(".chip").getAttribute("class"))?.split(" ").find((c) => c.startsWith("chip-")) };
};

describeBrowser("one status vocabulary", () => {
  // Plan steps long enough for a person's Escape to land while the plan runs.
  const app = useApp({ planStepDelayMs: 700, agents: [finisher] });

  it("header and list say the same at every change, through New, Starting, Working, Ready, Waiting for you, Cancelled, Failed and Done; another tab's list agrees", async () => {
    const page = await app.browser.newPage();
    const other = await app.browser.newPage();
    await openApp(other, app.server.url);
    await page.addInitScript(RECORDER);
    const agree = async (threadId: string) => {
      const now = await header(page);
      await expect.poll(() => rowOf(other, threadId), { timeout: 15_000 }).toEqual(now);
      return now;
    };

    // New, then a plan: Starting…, Working…, Ready.
    const plan = await openApp(page, app.server.url);
    expect(await header(page)).toEqual({ status: "NEW", label: "New", tone: "chip-new" });
    await send(page, "Make a plan to launch the website");
    await waitForStatus(page, "RUNNING");
    expect(await header(page)).toMatchObject({ label: "Working…", tone: "chip-running" });
    await screenshot(page, "80-status-working");
    await waitForStatus(page, "WAITING", 30_000);
    expect(await agree(plan)).toEqual({ status: "WAITING", label: "Ready", tone: "chip-complete" });

    // An approval: the thread waits for the person, and its card says so in the same tone.
    await send(page, "Delete the old drafts");
    await page.locator('[data-testid="approval-card"][data-state="asking"]').waitFor({ timeout: 20_000 });
    await expect.poll(() => page.getByTestId("thread-status").getAttribute("data-label"), { timeout: 20_000 }).toBe("Waiting for you");
    expect(await agree(plan)).toEqual({ status: "WAITING", label: "Waiting for you", tone: "chip-you" });
    expect(await page.locator('[data-testid="approval-card"] .chip').getAttribute("class")).toContain("chip-you");
    await screenshot(page, "81-status-waiting-for-you");
    await page.getByTestId("approve-button").click();
    await expect.poll(() => page.getByTestId("thread-status").getAttribute("data-label"), { timeout: 20_000 }).toBe("Ready");

    // Escape: Cancelling…, Cancelled.
    await page.getByTestId("new-thread").click();
    const cancelled = decodeURIComponent(new URL(page.url()).pathname.split("/t/")[1]!);
    await send(page, "Make a plan to ship the release");
    await waitForStatus(page, "RUNNING");
    await page.keyboard.press("Escape");
    await waitForStatus(page, "CANCELLED");
    expect(await agree(cancelled)).toEqual({ status: "CANCELLED", label: "Cancelled", tone: "chip-cancelled" });

    // The upstream fails: Failed.
    await page.getByTestId("new-thread").click();
    const failed = decodeURIComponent(new URL(page.url()).pathname.split("/t/")[1]!);
    await send(page, DEMO_FAILURE_PROMPT);
    await waitForStatus(page, "FAILED", 30_000);
    expect(await agree(failed)).toEqual({ status: "FAILED", label: "Failed", tone: "chip-failed" });
    await screenshot(page, "82-status-failed");
    expect(await mismatches(page)).toEqual([]);
    const labels = new Set((await seen(page)).map((s) => s.label));
    expect(labels.size).toBeGreaterThan(3); // the recorder ran

    // A tool that completes the conversation: Done (another agent's page, a page load of its own).
    await page.goto(`${app.server.url}/agents/finisher`);
    await page.locator('[data-testid="chat-input"][data-enabled="true"]').waitFor();
    await send(page, "What's the weather in Paris?");
    await waitForStatus(page, "COMPLETED", 30_000);
    expect(await header(page)).toEqual({ status: "COMPLETED", label: "Done", tone: "chip-complete" });
    const done = decodeURIComponent(new URL(page.url()).pathname.split("/t/")[1]!);
    await expect.poll(() => page.locator(`[data-testid="thread-item"][data-thread-id="${done}"]`).getAttribute("data-label")).toBe("Done");
    await screenshot(page, "83-status-done");
    expect(await mismatches(page)).toEqual([]);
    for (const s of await seen(page)) labels.add(s.label);

    // Every word a person meets on the way. Starting… and Cancelling… last a moment (a cancel may
    // settle at once, with no Cancelling at all): compared above whenever the page drew them.
    expect([...labels]).toEqual(expect.arrayContaining(["New", "Working…", "Ready", "Waiting for you", "Cancelled", "Failed", "Done"]));
    console.info(`[status-words] seen: ${[...labels].join(", ")}`);
    await page.close();
    await other.close();
  }, 180_000);
});
