/**
 * "Starting…" forever (issue 32): a message typed while a useInterrupt question waits is one
 * CopilotKit's client will not run (the pending interrupt is not answered by it), and it throws
 * before any of the agent's run callbacks, which the chip waited for to leave PENDING. The chip
 * must say what is true: the thread still waits for the person; the message was not sent, and
 * the notice says so with what to do, the text kept; the question can still be answered.
 */
import { expect, it } from "vitest";
import { describeBrowser, openApp, screenshot, send, useApp, waitForStatus } from "./harness.ts";

describeBrowser("the status chip never stays on Starting…", () => {
  const app = useApp();

  it("a message CopilotKit will not run while an interrupt waits: Waiting for you again, the message kept as not sent", { timeout: 90_000 }, async () => {
    const page = await app.browser.newPage();
    await openApp(page, app.server.url, { feature: "interrupt" });
    await send(page, "Email the team a status update");
    await page.locator('[data-testid="use-interrupt-card"][data-state="asking"]').waitFor({ timeout: 20_000 });
    await waitForStatus(page, "WAITING");
    const chip = page.getByTestId("thread-status");
    await expect.poll(() => chip.getAttribute("data-label")).toBe("Waiting for you");

    await send(page, "Actually, never mind");
    const notice = page.getByTestId("refused");
    await notice.waitFor({ timeout: 15_000 });
    expect(await notice.getAttribute("data-code")).toBe("NOT_STARTED");
    expect(await page.getByTestId("refused-message").textContent()).toContain("pending interrupt");
    expect(await page.getByTestId("refused-fix").textContent()).toContain("Answer the question");
    expect(await page.getByTestId("refused-text").textContent()).toBe("Actually, never mind");
    await expect.poll(() => chip.getAttribute("data-label"), { timeout: 10_000 }).toBe("Waiting for you");
    await page.locator('[data-testid="chat-input"][data-enabled="true"]').waitFor();
    // Not shown as sent: only the first message is in the chat.
    expect(await page.getByTestId("copilot-user-message").allTextContents()).toEqual(["Email the team a status update"]);
    await screenshot(page, "starting-1-not-sent-while-asking");

    // The question still takes its answer, and the run it resumes reaches Ready.
    await page.locator('[data-testid="use-interrupt-card"] button', { hasText: "Approve" }).click();
    await expect.poll(() => chip.getAttribute("data-label"), { timeout: 20_000 }).toBe("Ready");
    await page.close();
  });
});
