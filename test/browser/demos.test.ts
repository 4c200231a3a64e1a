/**
 * The AG-UI dojo's features, each on its own page of the app with its own demo agent, driven
 * through the React app against the offline demo model. Every page must leave the browser
 * console clean, a brand-new thread included (no 404s for a thread that does not exist yet).
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { assistantMessages, consoleErrors, describeBrowser, openApp, openEvents, screenshot, send, useApp, waitForStatus } from "./harness.ts";

describeBrowser("feature demo pages in the browser", () => {
  // Plan steps long enough that a step is seen running, even on a loaded machine.
  const app = useApp({ planStepDelayMs: 400 });

  async function open(feature?: string): Promise<{ page: Page; threadId: string }> {
    const page = await app.browser.newPage();
    const threadId = await openApp(page, app.server.url, { feature });
    return { page, threadId };
  }

  async function finish(page: Page): Promise<void> {
    expect(consoleErrors(page)).toEqual([]);
    await page.close();
  }

  it("a new thread asks the server for nothing that is not there: no console errors, before or after its first run", async () => {
    const { page } = await open();
    await page.waitForLoadState("networkidle");
    await waitForStatus(page, "NEW");
    // A reload of the still-empty thread: the tab remembers it minted it.
    await page.reload();
    await page.waitForLoadState("networkidle");
    await waitForStatus(page, "NEW");
    expect(consoleErrors(page)).toEqual([]);

    await send(page, "Hello there");
    await waitForStatus(page, "WAITING");
    await openEvents(page);
    await page.getByTestId("event-list").locator('[data-type="workflow.suspended"]').waitFor();
    // "New thread" mints another; its list refresh is the last request it makes.
    const listed = page.waitForResponse((r) => r.url().includes("/api/threads?limit="));
    await page.getByTestId("new-thread").click();
    await listed;
    await waitForStatus(page, "NEW");
    await finish(page);
  });

  it("lists every demo in the picker, each page on its own agent", async () => {
    const { page } = await open();
    const links = page.getByTestId("demo-link");
    // The Threadline agent, the seven dojo features, durable interrupts, useInterrupt, subagents and the coding agent.
    await expect.poll(() => links.count()).toBe(12);
    await links.and(page.locator('[data-feature="shared-state"]')).click();
    await page.waitForURL(/\/demos\/shared-state\/t\//);
    await expect.poll(() => page.getByTestId("app").getAttribute("data-agent")).toBe("shared_state");
    await page.getByTestId("demo-intro").waitFor();
    await screenshot(page, "20-demo-picker");
    await finish(page);
  });

  it("agentic chat: the agent calls the page's change_background tool", async () => {
    const { page } = await open("agentic-chat");
    await send(page, "Change the background to teal");
    await expect.poll(() => page.getByTestId("app").getAttribute("data-background"), { timeout: 20_000 }).toBe("teal");
    await waitForStatus(page, "WAITING");
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("Done!");
    expect(await page.getByTestId("background-value").textContent()).toBe("teal");
    await screenshot(page, "21-demo-agentic-chat");
    await finish(page);
  });

  it("backend tool rendering: get_weather runs on the server and renders as a card", async () => {
    const { page } = await open("backend-tool-rendering");
    await send(page, "What's the weather in Paris?");
    const card = page.locator('[data-testid="tool-card"][data-tool="get_weather"]');
    await card.locator(".weather-temp").waitFor({ timeout: 20_000 });
    await waitForStatus(page, "WAITING");
    await expect.poll(() => card.getAttribute("data-status")).toBe("Complete");
    await expect.poll(() => assistantMessages(page).last().textContent()).toContain("In Paris it is");
    await expect.poll(() => page.getByTestId("weather-log-item").textContent()).toContain("°C");
    await screenshot(page, "22-demo-backend-tool-rendering");
    await finish(page);
  });

  it("human in the loop: the agent asks, the user approves, the agent acts", async () => {
    const { page } = await open("human-in-the-loop");
    await send(page, "Delete the old drafts");
    const card = page.locator('[data-testid="approval-card"][data-state="asking"]');
    await card.waitFor({ timeout: 20_000 });
    await waitForStatus(page, "WAITING");
    await expect.poll(() => page.getByTestId("decision").getAttribute("data-state")).toBe("waiting");
    await screenshot(page, "23a-demo-human-in-the-loop-asking");
    await card.getByTestId("approve-button").click();
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("Approved, so I went ahead");
    await expect.poll(() => page.getByTestId("decision").getAttribute("data-state")).toBe("approved");
    await waitForStatus(page, "WAITING");
    await screenshot(page, "23b-demo-human-in-the-loop-approved");
    await finish(page);
  });

  it("durable interrupts: a backend tool asks through CopilotKit's HITL hook; the question survives a reload; the approved step runs once", { timeout: 60_000 }, async () => {
    const { page, threadId } = await open("backend-approvals");
    await send(page, "Email the team a status update");
    const asking = page.locator('[data-testid="interrupt-card"][data-state="asking"]');
    await asking.waitFor({ timeout: 20_000 });
    await waitForStatus(page, "WAITING");
    expect(await asking.getAttribute("data-kind")).toBe("approval");
    await screenshot(page, "28a-demo-interrupt-asking");
    // A reload: the thread still waits, and the card still asks. The answer is given once the
    // reloaded page's connect has ended (until then CopilotKit counts the agent as running).
    const connected = page.waitForResponse((r) => r.url().includes("/connect"), { timeout: 20_000 });
    await page.reload();
    await page.getByTestId("copilot-chat-textarea").waitFor();
    await asking.waitFor({ timeout: 20_000 });
    await (await connected).finished();
    await screenshot(page, "28b-demo-interrupt-after-reload");
    await asking.getByTestId("approve-button").click();
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("the email is sent");
    await waitForStatus(page, "WAITING");
    await screenshot(page, "28c-demo-interrupt-approved");
    const log = (await (await fetch(`${app.server.url}/api/threads/${threadId}/events?limit=10000`)).json()) as { events: { type: string; data: { via?: string } }[] };
    expect(log.events.filter((e) => e.type === "interrupt.requested")).toHaveLength(1);
    expect(log.events.filter((e) => e.type === "interrupt.resolved").map((e) => e.data.via)).toEqual(["tool_result"]);
    await finish(page);
  });

  it("agentic generative UI: the plan's steps update from shared state while the agent works", async () => {
    const { page } = await open("agentic-generative-ui");
    // Every value the panel's progress goes through: a live plan moves one step at a time.
    await page.evaluate(`(() => {
      window.seen = [];
      new MutationObserver(() => {
        const done = document.querySelector('[data-testid="plan-panel"] [data-testid="plan-steps"]')?.getAttribute("data-done");
        if (done !== undefined && done !== null && window.seen.at(-1) !== done) window.seen.push(done);
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    })()`);
    await send(page, "Make a plan to launch the website");
    const panel = page.getByTestId("plan-panel").getByTestId("plan-steps");
    await panel.locator('[data-testid="plan-step"][data-status="running"]').waitFor({ timeout: 20_000 });
    await screenshot(page, "24a-demo-agentic-generative-ui-working");
    await expect.poll(() => panel.getAttribute("data-done"), { timeout: 20_000 }).toBe("4");
    await waitForStatus(page, "WAITING");
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("all 4 steps");
    // Renders may coalesce two deltas that land together, but never go back, and show steps between.
    const seen = ((await page.evaluate("window.seen")) as string[]).map(Number);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen.at(-1)).toBe(4);
    expect(seen.filter((n) => n > 0 && n < 4).length).toBeGreaterThanOrEqual(2);
    await screenshot(page, "24b-demo-agentic-generative-ui-done");
    await finish(page);
  });

  it("tool-based generative UI: generate_haiku's arguments render as a haiku card", async () => {
    const { page } = await open("tool-based-generative-ui");
    await send(page, "Write a haiku about the moon");
    const card = page.getByTestId("chat").getByTestId("haiku-card");
    await expect.poll(() => card.locator(".haiku-line").count(), { timeout: 20_000 }).toBe(3);
    await waitForStatus(page, "WAITING");
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("Buson");
    expect(await card.textContent()).toContain("the moon in the east");
    expect(await page.getByTestId("haiku-latest").textContent()).toContain("月は東に");
    await screenshot(page, "25-demo-tool-based-generative-ui");
    await finish(page);
  });

  it("shared state: the agent writes the recipe, the user edits it, the agent builds on the edit", async () => {
    const { page, threadId } = await open("shared-state");
    await send(page, "Suggest a recipe");
    await expect.poll(() => page.getByTestId("recipe-title").inputValue(), { timeout: 20_000 }).toBe("Pasta al pomodoro");
    await waitForStatus(page, "WAITING");
    const ingredients = page.getByTestId("ingredient");
    expect(await ingredients.count()).toBe(4);

    // The user's side: a new title and an ingredient of their own.
    await page.getByTestId("recipe-title").fill("Pasta for Sunday");
    await page.getByTestId("ingredient-input").fill("Mushrooms");
    await page.getByTestId("ingredient-add").click();
    await expect.poll(() => ingredients.count()).toBe(5);
    await screenshot(page, "26a-demo-shared-state-user-edit");

    await send(page, "Improve it");
    await expect.poll(() => ingredients.count(), { timeout: 20_000 }).toBe(6);
    await waitForStatus(page, "WAITING");
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("kept your changes");
    expect(await ingredients.nth(4).textContent()).toContain("Mushrooms");
    expect(await ingredients.nth(5).textContent()).toContain("Fresh basil");
    expect(await page.getByTestId("recipe-title").inputValue()).toBe("Pasta for Sunday");
    const res = await fetch(`${app.server.url}/api/threads/${threadId}`);
    const { state } = (await res.json()) as { state: { recipe: { title: string; ingredients: { name: string }[] } } };
    expect(state.recipe.title).toBe("Pasta for Sunday");
    expect(state.recipe.ingredients.map((i) => i.name)).toEqual(["Spaghetti", "Tomatoes", "Garlic", "Olive oil", "Mushrooms", "Fresh basil"]);
    await screenshot(page, "26b-demo-shared-state-agent-edit");
    await finish(page);
  });

  it("predictive state updates: write_document_local fills state.document; confirm_changes keeps it, and Reject puts the confirmed one back", { timeout: 60_000 }, async () => {
    const { page, threadId } = await open("predictive-state-updates");
    await send(page, "Write a document about the sea");
    const doc = page.getByTestId("document");
    await expect.poll(() => doc.locator(".doc-title").textContent(), { timeout: 20_000 }).toBe("The sea");
    const asking = page.locator('[data-testid="confirm-changes-modal"][data-state="asking"]');
    await asking.waitFor({ timeout: 20_000 });
    await waitForStatus(page, "WAITING");
    await expect.poll(() => page.locator('[data-testid="tool-card"][data-tool="write_document_local"]').getAttribute("data-status")).toBe("complete");
    await screenshot(page, "27a-demo-predictive-state-asking");
    await asking.getByTestId("confirm-button").click();
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("Confirmed");
    await waitForStatus(page, "WAITING");
    expect(await doc.textContent()).toContain("Why it matters");

    // A second proposal, rejected: the page shows the confirmed document again, and so does the thread.
    await send(page, "Write a document about autumn");
    await expect.poll(() => doc.locator(".doc-title").textContent(), { timeout: 20_000 }).toBe("Autumn");
    await asking.waitFor({ timeout: 20_000 });
    await waitForStatus(page, "WAITING");
    await asking.getByTestId("reject-button").click();
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("Rejected");
    await waitForStatus(page, "WAITING");
    await expect.poll(() => doc.locator(".doc-title").textContent()).toBe("The sea");
    const res = await fetch(`${app.server.url}/api/threads/${threadId}`);
    const { state } = (await res.json()) as { state: { document: string } };
    expect(state.document).toMatch(/^# The sea\n/);
    await screenshot(page, "27b-demo-predictive-state-rejected");
    await finish(page);
  });
});
