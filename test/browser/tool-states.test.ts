/**
 * Tool states that are true, in the browser, driven as a person does: send_email says "Awaiting
 * approval" (not Complete) before it is approved, and after a reload; a plan cancelled at step 1
 * says Cancelled on its card and in the API, and its saved state marks the steps cancelled after
 * a reload; an approval superseded by a newer message closes, says so, and a click answers
 * nothing (the log holds one resolution); after a failure and after a cancel the input works and
 * Retry runs the last turn again.
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { DEMO_FAILURE_PROMPT } from "../../server/demo/fixtures.ts";
import { assistantMessages, describeBrowser, openApp, screenshot, send, useApp, waitForStatus } from "./harness.ts";

interface Events {
  events: { type: string; data: Record<string, unknown> }[];
}

describeBrowser("tool states in the browser", () => {
  // Plan steps of a minute: a cancel always lands in step 1.
  const app = useApp({ planStepDelayMs: 60_000 });
  const api = async <T,>(path: string) => (await (await fetch(`${app.server.url}${path}`)).json()) as T;
  const events = async (threadId: string) => (await api<Events>(`/api/threads/${threadId}/events?limit=10000`)).events;
  const card = (page: Page, tool: string) => page.locator(`[data-testid="tool-card"][data-tool="${tool}"]`);

  it("send_email waiting for approval says so, before and after a reload", async () => {
    const page = await app.browser.newPage();
    const threadId = await openApp(page, app.server.url, { feature: "backend-approvals" });
    await send(page, "Email the team a status update");
    await page.locator('[data-testid="interrupt-card"][data-state="asking"]').waitFor({ timeout: 20_000 });
    await waitForStatus(page, "WAITING");
    await expect.poll(() => card(page, "send_email").getAttribute("data-status"), { timeout: 20_000 }).toBe("Awaiting approval");
    expect(await card(page, "send_email").getByTestId("tool-status").textContent()).toBe("Awaiting approval");
    await screenshot(page, "40a-send-email-awaiting-approval");

    await page.reload();
    await waitForStatus(page, "WAITING");
    await expect.poll(() => card(page, "send_email").getAttribute("data-status"), { timeout: 20_000 }).toBe("Awaiting approval");
    const view = await api<{ toolCalls: Record<string, { name: string; status: string }> }>(`/api/threads/${threadId}`);
    expect(Object.values(view.toolCalls).find((c) => c.name === "send_email")?.status).toBe("awaiting_approval");
    await screenshot(page, "40b-send-email-awaiting-after-reload");
    await page.close();
  });

  it("an approval superseded by a newer message closes and says so; a click answers nothing", async () => {
    const page = await app.browser.newPage();
    const threadId = await openApp(page, app.server.url, { feature: "backend-approvals" });
    await send(page, "Email the team a status update");
    const asking = page.locator('[data-testid="interrupt-card"][data-state="asking"]');
    await asking.waitFor({ timeout: 20_000 });
    await waitForStatus(page, "WAITING");

    await send(page, "Never mind, schedule a meeting about the launch instead");
    const closed = page.locator('[data-testid="interrupt-card"][data-kind="approval"]');
    await expect.poll(() => closed.getAttribute("data-state"), { timeout: 20_000 }).toBe("cancelled");
    expect(await closed.getByTestId("closed-reason").textContent()).toContain("a newer message came instead of an answer");
    expect(await closed.getByTestId("approve-button").count()).toBe(0);
    await expect.poll(() => card(page, "send_email").getAttribute("data-status"), { timeout: 20_000 }).toBe("Cancelled");
    await closed.click(); // a person clicking the old card: there is nothing to answer with
    await waitForStatus(page, "WAITING");
    await screenshot(page, "41-superseded-approval-closed");

    const resolutions = (await events(threadId)).filter((e) => e.type === "interrupt.resolved" && String(e.data.interruptId).includes("interrupt-"));
    const emailAnswers = resolutions.filter((e) => e.data.via !== undefined && (e.data.status === "cancelled" || e.data.status === "resolved"));
    expect(emailAnswers.filter((e) => e.data.status === "resolved")).toEqual([]);
    expect(emailAnswers.filter((e) => e.data.via === "superseded")).toHaveLength(1);
    await page.close();
  });

  it("a plan cancelled at step 1 says Cancelled, on the card and in the API, and its steps say so after a reload; Retry runs it again", async () => {
    const page = await app.browser.newPage();
    const threadId = await openApp(page, app.server.url);
    await send(page, "Make a plan to launch the website");
    await expect.poll(() => page.locator('[data-testid="plan-step"][data-status="running"]').count(), { timeout: 20_000 }).toBe(1);
    await page.getByTestId("cancel-button").click();
    await waitForStatus(page, "CANCELLED");
    await expect.poll(() => card(page, "run_plan").getAttribute("data-status"), { timeout: 20_000 }).toBe("Cancelled");
    expect(await card(page, "run_plan").getByTestId("tool-reason").textContent()).toContain("the run was cancelled");
    const view = await api<{ toolCalls: Record<string, { status: string }>; state: { plan: { steps: { status: string }[] } } }>(`/api/threads/${threadId}`);
    expect(Object.values(view.toolCalls).map((c) => c.status)).toEqual(["cancelled"]);
    expect(view.state.plan.steps.map((s) => s.status)).toEqual(view.state.plan.steps.map(() => "cancelled"));

    await page.reload();
    await waitForStatus(page, "CANCELLED");
    await expect.poll(() => card(page, "run_plan").getAttribute("data-status"), { timeout: 20_000 }).toBe("Cancelled");
    await expect.poll(() => page.locator('[data-testid="plan-step"][data-status="cancelled"]').count(), { timeout: 20_000 }).toBe(view.state.plan.steps.length);
    expect(await page.getByTestId("chat-input").getAttribute("data-enabled")).toBe("true");
    await screenshot(page, "42a-plan-cancelled-after-reload");

    // Retry: the same question runs again (a second plan starts), and can be cancelled again.
    await page.getByTestId("cancelled-banner").getByTestId("retry-button").click();
    await waitForStatus(page, "RUNNING");
    await expect.poll(() => page.locator('[data-testid="plan-step"][data-status="running"]').count(), { timeout: 20_000 }).toBe(1);
    await screenshot(page, "42b-plan-retried");
    const runs = (await events(threadId)).filter((e) => e.type === "run.accepted");
    expect(runs).toHaveLength(2);
    await page.getByTestId("cancel-button").click();
    await waitForStatus(page, "CANCELLED");
    const users = (await api<{ messages: { role: string; content: string }[] }>(`/api/threads/${threadId}`)).messages.filter((m) => m.role === "user");
    expect(users.map((m) => m.content)).toEqual(["Make a plan to launch the website"]);
    await page.close();
  });

  it("after a failure the input works and Retry runs the last turn again", async () => {
    const page = await app.browser.newPage();
    const threadId = await openApp(page, app.server.url);
    await send(page, DEMO_FAILURE_PROMPT);
    await waitForStatus(page, "FAILED", 30_000);
    const banner = page.getByTestId("error-banner");
    await banner.getByTestId("retry-button").waitFor();
    expect(await page.getByTestId("chat-input").getAttribute("data-enabled")).toBe("true");
    await screenshot(page, "43a-failed-with-retry");

    await banner.getByTestId("retry-button").click();
    // The same turn again: a second run of the same question, which fails the same way.
    await expect.poll(async () => (await events(threadId)).filter((e) => e.type === "workflow.failed").length, { timeout: 30_000 }).toBe(2);
    await waitForStatus(page, "FAILED", 30_000);
    const users = (await api<{ messages: { role: string }[] }>(`/api/threads/${threadId}`)).messages.filter((m) => m.role === "user");
    expect(users).toHaveLength(1);

    // And the conversation goes on with a new message.
    await send(page, "What's the weather in Paris?");
    await waitForStatus(page, "WAITING", 30_000);
    await expect.poll(() => card(page, "get_weather").getAttribute("data-status"), { timeout: 20_000 }).toBe("Complete");
    await expect.poll(() => assistantMessages(page).count()).toBeGreaterThan(0);
    await screenshot(page, "43b-after-failure-goes-on");
    await page.close();
  });
});
