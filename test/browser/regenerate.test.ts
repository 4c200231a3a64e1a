/**
 * Regenerate and edit in the React app (CopilotKit's message toolbar): the thread forks, the new
 * answer replaces the old, and every branch stays on the server.
 */
import { expect, it } from "vitest";
import { assistantMessages, consoleErrors, describeBrowser, openApp, screenshot, send, waitForStatus, useApp } from "./harness.ts";

describeBrowser("regenerate in the browser", () => {
  const app = useApp();

  it("Regenerate, then an edit: each forks the thread; a reload shows the current branch; the old ones stay readable", { timeout: 120_000 }, async () => {
    const page = await app.browser.newPage();
    const errors = consoleErrors(page);
    const threadId = await openApp(page, app.server.url);
    await send(page, "What's the weather in Paris?");
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("In Paris it is");
    await waitForStatus(page, "WAITING");
    const before = (await (await fetch(`${app.server.url}/api/threads/${threadId}`)).json()) as { branch: string; messages: { id: string; role: string }[] };
    expect(before.branch).toBe("main");
    const oldAnswer = before.messages.filter((m) => m.role === "assistant").at(-1)!.id;

    // CopilotKit's own control on the last answer (it shows on hover).
    await assistantMessages(page).last().hover();
    // (The toolbar fades in on hover; the opacity transition keeps it "not stable" for Playwright.)
    await page.getByRole("button", { name: "Regenerate", exact: true }).last().click({ force: true });
    await expect
      .poll(async () => ((await (await fetch(`${app.server.url}/api/threads/${threadId}`)).json()) as { branch: string }).branch, { timeout: 20_000 })
      .not.toBe("main");
    await waitForStatus(page, "WAITING");
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("In Paris it is");
    await screenshot(page, "30-regenerated");

    const after = (await (await fetch(`${app.server.url}/api/threads/${threadId}`)).json()) as { branch: string; messages: { id: string; role: string }[] };
    expect(after.messages.map((m) => m.id)).not.toContain(oldAnswer);
    expect(after.messages.filter((m) => m.role === "user")).toHaveLength(1);
    const main = (await (await fetch(`${app.server.url}/api/threads/${threadId}?branch=main`)).json()) as { messages: { id: string }[] };
    expect(main.messages.map((m) => m.id)).toContain(oldAnswer);

    // A reload shows the current branch: one question, one answer.
    const shown = await assistantMessages(page).count();
    await page.reload();
    await page.getByTestId("copilot-chat-textarea").waitFor();
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("In Paris it is");
    expect(await assistantMessages(page).count()).toBe(shown);
    await expect.poll(() => page.getByTestId("copilot-user-message").count()).toBe(1);
    await screenshot(page, "31-regenerated-reload");

    // Edit the question: the same message id with new text; the thread forks again, before it.
    await waitForStatus(page, "WAITING");
    await page.getByTestId("copilot-user-message").first().hover();
    await page.getByRole("button", { name: "Edit", exact: true }).first().click({ force: true });
    await page.getByTestId("edit-text").fill("What's the weather in Tokyo?");
    await screenshot(page, "32-editing");
    await page.getByTestId("edit-save").click();
    await expect.poll(() => page.getByTestId("copilot-user-message").first().textContent(), { timeout: 20_000 }).toContain("Tokyo");
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("In Tokyo it is");
    await waitForStatus(page, "WAITING");
    const edited = (await (await fetch(`${app.server.url}/api/threads/${threadId}`)).json()) as { branch: string; branches: unknown[]; messages: { id: string; role: string; content?: string }[] };
    expect(edited.branches).toHaveLength(3);
    expect(edited.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["What's the weather in Tokyo?"]);
    await screenshot(page, "33-edited");
    expect(errors).toEqual([]);
    await page.close();
  });
});
