/**
 * The `interrupt` demo page: CopilotKit's own useInterrupt (react-core v2) in Chromium against the
 * `approvals` agent and the offline demo model. The page offers no HITL tool, so the question comes
 * as AG-UI 1.0's interrupt outcome and the answer as the hook's resume under the interrupted run's
 * id. Asked, reloaded while asking, edited and approved: what ran is the edited email. Denied:
 * nothing is sent. A question (schedule_meeting): the slot picked fits its responseSchema and is
 * booked once. At a phone's viewport the card and the input can still be reached.
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { admissionRunId } from "../../protocol/run-ids.ts";
import { MEETING_SLOTS } from "../../server/demo/approvals-fixtures.ts";
import { assistantMessages, consoleErrors, describeBrowser, openApp, screenshot, send, useApp, waitForStatus } from "./harness.ts";

interface LoggedEvent {
  type: string;
  data: { runId?: string; via?: string; status?: string; payload?: { approved?: boolean; editedArgs?: Record<string, unknown>; slot?: string } };
}
interface ThreadMessage {
  role: string;
  toolCallId?: string;
  content?: unknown;
  toolCalls?: { id: string; function: { name: string; arguments: string } }[];
}

describeBrowser("useInterrupt page in the browser", () => {
  const app = useApp();

  async function events(threadId: string): Promise<LoggedEvent[]> {
    const res = await fetch(`${app.server.url}/api/threads/${threadId}/events?limit=10000`);
    return ((await res.json()) as { events: LoggedEvent[] }).events;
  }

  async function thread(threadId: string): Promise<{ status: string; pendingInterrupts: unknown[]; messages: ThreadMessage[]; state: { outbox?: { to: string }[] } }> {
    return (await (await fetch(`${app.server.url}/api/threads/${threadId}`)).json()) as never;
  }

  /** send_email's tool message as the server keeps it: the decision, and the arguments it ran with. */
  async function keptDecision(threadId: string): Promise<{ approval?: string; arguments?: Record<string, unknown>; result?: unknown }> {
    const { messages } = await thread(threadId);
    const call = messages.flatMap((m) => m.toolCalls ?? []).find((c) => c.function.name === "send_email");
    const tool = messages.find((m) => m.role === "tool" && m.toolCallId === call?.id);
    return typeof tool?.content === "string" ? JSON.parse(tool.content) : {};
  }

  async function ask(page: Page): Promise<void> {
    await send(page, "Email the team a status update");
    await page.locator('[data-testid="use-interrupt-card"][data-state="asking"]').waitFor({ timeout: 20_000 });
    await waitForStatus(page, "WAITING");
  }

  it("asks, survives a reload, and an approval with edits sends the edited email", { timeout: 90_000 }, async () => {
    const page = await app.browser.newPage();
    const threadId = await openApp(page, app.server.url, { feature: "interrupt" });
    await ask(page);
    const card = page.getByTestId("use-interrupt-card");
    expect(await card.getAttribute("data-reason")).toBe("tool_call");
    expect(await card.getByTestId("interrupt-args").textContent()).toContain("team@example.com");
    // No HITL tool on this page: the question is the 1.0 outcome, not a threadline_interrupt call.
    expect((await thread(threadId)).messages.flatMap((m) => m.toolCalls ?? []).map((c) => c.function.name)).toEqual(["send_email"]);
    await screenshot(page, "40a-use-interrupt-asking");

    // A reload while it asks: the connect replays the outcome and the hook asks again. The card's
    // buttons stay disabled until CopilotKit has handled the connect (an answer before would be dropped).
    const connected = page.waitForResponse((r) => r.url().includes("/connect"), { timeout: 20_000 });
    await page.reload();
    const asking = page.locator('[data-testid="use-interrupt-card"][data-state="asking"]');
    await asking.waitFor({ timeout: 20_000 });
    await (await connected).finished();
    await waitForStatus(page, "WAITING");
    await expect.poll(() => asking.getByTestId("edit-button").isEnabled(), { timeout: 20_000 }).toBe(true);
    await screenshot(page, "40b-use-interrupt-after-reload");

    await asking.getByTestId("edit-button").click();
    const form = page.getByTestId("interrupt-edit");
    await form.getByTestId("edit-to").fill("ceo@example.com");
    await form.getByTestId("edit-subject").fill("Status update (edited)");
    await screenshot(page, "40c-use-interrupt-editing");
    await form.getByTestId("approve-edited-button").click();

    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("Done: the email is sent.");
    await waitForStatus(page, "WAITING");
    await page.locator('[data-testid="sent-email"][data-to="ceo@example.com"]').waitFor();
    await expect.poll(() => page.getByTestId("decision").getAttribute("data-decision")).toBe("edited");
    await expect.poll(() => page.getByTestId("use-interrupt-card").count()).toBe(0);
    await screenshot(page, "40d-use-interrupt-approved-with-edits");

    // What ran is the edited email: the state's outbox, the tool message the model read, the log.
    const after = await thread(threadId);
    expect(after).toMatchObject({ status: "WAITING", pendingInterrupts: [] });
    expect(after.state.outbox).toEqual([{ to: "ceo@example.com", subject: "Status update (edited)", body: "All green this week." }]);
    expect(await keptDecision(threadId)).toMatchObject({
      approval: "edited",
      arguments: { to: "ceo@example.com", subject: "Status update (edited)", body: "All green this week." },
      result: { sent: true, to: "ceo@example.com" },
    });
    const log = await events(threadId);
    const resolved = log.filter((e) => e.type === "interrupt.resolved");
    expect(resolved).toHaveLength(1);
    expect(resolved[0]!.data).toMatchObject({ via: "resume", status: "resolved", payload: { approved: true, editedArgs: { to: "ceo@example.com" } } });
    // After the reload the hook answers under the runId of the connect that replayed the question
    // (its onRunFinishedEvent's input), a new id: two runs, each admitted once.
    expect(log.filter((e) => e.type === "run.accepted")).toHaveLength(2);
    expect(consoleErrors(page)).toEqual([]);
    await page.close();
  });

  it("deny: nothing is sent, the model says so, and a reload shows the decision", { timeout: 60_000 }, async () => {
    const page = await app.browser.newPage();
    const threadId = await openApp(page, app.server.url, { feature: "interrupt" });
    await ask(page);
    await page.getByTestId("use-interrupt-card").getByTestId("deny-button").click();
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("Understood: I did not send the email.");
    await waitForStatus(page, "WAITING");
    await expect.poll(() => page.getByTestId("decision").getAttribute("data-decision")).toBe("denied");
    expect(await page.getByTestId("sent-email").count()).toBe(0);
    expect((await thread(threadId)).state.outbox).toBeUndefined();
    expect(await keptDecision(threadId)).toMatchObject({ approval: "denied" });
    // Without a reload the hook answers under the interrupted run's own id: its second admission.
    const accepted = (await events(threadId)).filter((e) => e.type === "run.accepted").map((e) => e.data.runId!);
    expect(accepted).toEqual([accepted[0], admissionRunId(accepted[0]!, 2)]);

    await page.reload();
    await page.locator('[data-testid="decision"][data-decision="denied"]').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId("use-interrupt-card").count()).toBe(0);
    await screenshot(page, "40e-use-interrupt-denied");
    expect(consoleErrors(page)).toEqual([]);
    await page.close();
  });

  it("a question (schedule_meeting): the page's slot answer fits the question's responseSchema and books once", { timeout: 60_000 }, async () => {
    const page = await app.browser.newPage();
    const threadId = await openApp(page, app.server.url, { feature: "interrupt" });
    await send(page, "Schedule a meeting about the launch");
    const card = page.locator('[data-testid="use-interrupt-card"][data-state="asking"]');
    await card.waitFor({ timeout: 20_000 });
    await waitForStatus(page, "WAITING");
    expect(await card.getAttribute("data-reason")).toBe("threadline:choose_slot");
    const slots = card.getByTestId("slot-button");
    expect(await slots.allTextContents()).toEqual(MEETING_SLOTS);
    await screenshot(page, "40h-use-interrupt-slot-asking");
    await slots.nth(1).click();
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain(`Booked for ${MEETING_SLOTS[1]}.`);
    await waitForStatus(page, "WAITING");
    await screenshot(page, "40i-use-interrupt-slot-booked");
    const { messages } = await thread(threadId);
    expect(messages.filter((m) => m.role === "tool").map((m) => JSON.parse(String(m.content)))).toEqual([{ booked: true, title: "Launch sync", slot: MEETING_SLOTS[1] }]);
    expect((await events(threadId)).find((e) => e.type === "interrupt.resolved")?.data).toMatchObject({ via: "resume", status: "resolved", payload: { slot: MEETING_SLOTS[1] } });
    expect(consoleErrors(page)).toEqual([]);
    await page.close();
  });

  it("at a phone's viewport the card and the chat input can be reached", { timeout: 60_000 }, async () => {
    const page = await app.browser.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await openApp(page, app.server.url, { feature: "interrupt" });
    await ask(page);
    const approve = page.getByTestId("use-interrupt-card").getByTestId("approve-button");
    await approve.scrollIntoViewIfNeeded();
    await screenshot(page, "40f-use-interrupt-phone");
    await approve.click();
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("Done: the email is sent.");
    await page.getByTestId("copilot-chat-textarea").scrollIntoViewIfNeeded();
    await screenshot(page, "40g-use-interrupt-phone-input");
    expect(await page.getByTestId("copilot-chat-textarea").isVisible()).toBe(true);
    await page.close();
  });
});
