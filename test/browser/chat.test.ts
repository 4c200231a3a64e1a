/** A message streams a reply; the weather card renders; a frontend tool runs. */
import { expect, it } from "vitest";
import { assistantMessages, describeBrowser, openApp, openSidePanel, screenshot, send, waitForStatus, useApp } from "./harness.ts";

describeBrowser("chat in the browser", () => {
  const app = useApp();

  it("streams a reply to a message", async () => {
    const page = await app.browser.newPage();
    await openApp(page, app.server.url);
    // Record every length the reply goes through: a streamed reply grows in steps.
    // (A string, not a function: this file is type-checked without the DOM library.)
    await page.evaluate(`(() => {
      window.lengths = [];
      new MutationObserver(() => {
        const last = [...document.querySelectorAll('[data-testid="copilot-assistant-message"]')].at(-1);
        const n = last?.textContent?.length ?? 0;
        if (n && window.lengths.at(-1) !== n) window.lengths.push(n);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    })()`);
    await send(page, "Hello there");
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("OPENAI_API_KEY");
    await waitForStatus(page, "WAITING");
    const lengths = (await page.evaluate("window.lengths")) as number[];
    expect(lengths.length).toBeGreaterThan(3);
    await expect.poll(() => page.getByTestId("copilot-user-message").first().textContent()).toContain("Hello there");
    await screenshot(page, "01-streamed-reply");
    await page.close();
  });

  it("renders the weather card for get_weather", async () => {
    const page = await app.browser.newPage();
    await openApp(page, app.server.url);
    await send(page, "What's the weather in Paris?");
    const card = page.locator('[data-testid="tool-card"][data-tool="get_weather"]');
    await card.waitFor({ timeout: 20_000 });
    await page.getByTestId("weather-card").locator(".weather-temp").waitFor({ timeout: 20_000 });
    await waitForStatus(page, "WAITING");
    await expect.poll(() => card.getAttribute("data-status")).toBe("Complete");
    expect(await card.textContent()).toContain("Paris");
    await expect.poll(() => assistantMessages(page).last().textContent()).toContain("In Paris it is");
    await screenshot(page, "02-weather-card");
    await page.close();
  });

  it("runs the change_background frontend tool, and keeps the background after a reload", async () => {
    const page = await app.browser.newPage();
    await openApp(page, app.server.url);
    await send(page, "Change the background to blue");
    await expect.poll(() => page.getByTestId("app").getAttribute("data-background"), { timeout: 20_000 }).toBe("blue");
    await waitForStatus(page, "WAITING");
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("Done!");
    const card = page.locator('[data-testid="tool-card"][data-tool="change_background"]');
    await expect.poll(() => card.getAttribute("data-status")).toBe("Complete");
    await screenshot(page, "03-frontend-tool");
    await page.reload();
    await expect.poll(() => page.getByTestId("app").getAttribute("data-background"), { timeout: 20_000 }).toBe("blue");
    await expect.poll(() => card.getAttribute("data-status")).toBe("Complete");
    await page.close();
  });

  it("shares state both ways: the agent's task edits show live, the user's reach the next run", async () => {
    const page = await app.browser.newPage();
    const threadId = await openApp(page, app.server.url);
    await openSidePanel(page);
    await send(page, "Add a task: water the plants");
    const items = page.getByTestId("task-item");
    await expect.poll(() => items.count(), { timeout: 20_000 }).toBe(3);
    await expect.poll(() => page.getByTestId("task-list").textContent()).toContain("water the plants");
    await waitForStatus(page, "WAITING");

    // The user's edits: tick the second task and add one of their own.
    await page.locator('[data-task-id="task-2"] input[type="checkbox"]').check();
    await page.getByTestId("task-input").fill("Buy milk");
    await page.getByTestId("task-add").click();
    await expect.poll(() => items.count()).toBe(4);
    await screenshot(page, "04a-state-edited-by-user");

    await send(page, "Hello again");
    await waitForStatus(page, "PENDING").catch(() => undefined);
    await waitForStatus(page, "WAITING");
    const res = await fetch(`${app.server.url}/api/threads/${threadId}`);
    const { state } = (await res.json()) as { state: { tasks: { id: string; title: string; done: boolean }[] } };
    expect(state.tasks.map((t) => t.title)).toContain("Buy milk");
    expect(state.tasks.find((t) => t.id === "task-2")?.done).toBe(true);

    // A plan: its progress streams into state.plan, and run_plan's terminal output shows in its card.
    await send(page, "Make a plan to launch the website");
    await expect.poll(() => page.getByTestId("plan-progress").getAttribute("data-done"), { timeout: 20_000 }).toBe("4");
    await waitForStatus(page, "WAITING");
    const plan = page.locator('[data-testid="tool-card"][data-tool="run_plan"]');
    await expect.poll(() => plan.getByTestId("terminal").textContent(), { timeout: 10_000 }).toContain("plan complete");
    await screenshot(page, "04b-state-plan");
    await page.close();
  });

  it("shows reasoning as a collapsible block before the answer", async () => {
    const page = await app.browser.newPage();
    await openApp(page, app.server.url);
    await send(page, "Think it through: is a hot dog a sandwich?");
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("I thought it over");
    const reasoning = page.getByTestId("reasoning-message");
    await reasoning.first().waitFor({ timeout: 10_000 });
    await reasoning.first().locator("button").first().click();
    await expect.poll(() => reasoning.first().textContent()).toContain("weigh both sides");
    await screenshot(page, "10-reasoning");
    await page.close();
  });

  it("lists threads, starts a new one, and switches back to an old one with its conversation", async () => {
    const page = await app.browser.newPage();
    const first = await openApp(page, app.server.url);
    await send(page, "What's the weather in Tokyo?");
    await waitForStatus(page, "WAITING");
    await page.getByTestId("new-thread").click();
    await expect.poll(() => page.url()).not.toContain(first);
    await waitForStatus(page, "NEW");
    expect(await page.getByTestId("copilot-user-message").count()).toBe(0);
    const old = page.locator(`[data-testid="thread-item"][data-thread-id="${first}"]`);
    await expect.poll(() => old.getAttribute("data-status"), { timeout: 10_000 }).toBe("WAITING");
    await screenshot(page, "11a-threads-new");
    await old.click();
    await expect.poll(() => page.url()).toContain(`/t/${first}`);
    await expect.poll(() => page.getByTestId("copilot-user-message").first().textContent(), { timeout: 20_000 }).toContain("Tokyo");
    await page.locator('[data-testid="tool-card"][data-tool="get_weather"][data-status="Complete"]').waitFor();
    await screenshot(page, "11b-threads-switched");
    await page.close();
  });
});
