/**
 * Branch navigation in the app: after Regenerate and after an edit, "‹ 1/2 ›" reaches the other
 * branch, a reload shows the branch last chosen, and a message sent from a branch left behind
 * forks the thread there (it becomes the current branch; nothing is deleted).
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { assistantMessages, consoleErrors, describeBrowser, openApp, screenshot, send, useApp, waitForStatus } from "./harness.ts";

interface ThreadJson {
  branch: string;
  branches: { branchId: string }[];
  messages: { id: string; role: string; content?: unknown }[];
}

const switches = (page: Page) => page.getByTestId("branch-switch");
const positions = (page: Page) => page.getByTestId("branch-position").allTextContents();
/** Where two answers part: the first assistant message after the question (a tool call's, here). */
const firstAnswer = (t: ThreadJson) => t.messages.find((m) => m.role === "assistant")!.id;
const userTexts = (page: Page) => page.getByTestId("copilot-user-message").allTextContents();

async function reload(page: Page): Promise<void> {
  await page.reload();
  await page.getByTestId("copilot-chat-textarea").waitFor();
}

describeBrowser("branches in the browser", () => {
  const app = useApp();
  const thread = async (threadId: string, q = "") => (await (await fetch(`${app.server.url}/api/threads/${threadId}${q}`)).json()) as ThreadJson;

  it("‹ 1/2 › after Regenerate and after an edit, the choice surviving a reload; sending from an old branch forks there", { timeout: 240_000 }, async () => {
    const page = await app.browser.newPage();
    const errors = consoleErrors(page);
    const threadId = await openApp(page, app.server.url);
    await send(page, "What's the weather in Paris?");
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("In Paris it is");
    await waitForStatus(page, "WAITING");
    expect(await switches(page).count()).toBe(0);
    const first = firstAnswer(await thread(threadId));

    // Regenerate: the new answer is 2/2, the old one 1/2.
    await assistantMessages(page).last().hover();
    await page.getByRole("button", { name: "Regenerate", exact: true }).last().click({ force: true });
    await expect.poll(async () => (await thread(threadId)).branches.length, { timeout: 20_000 }).toBe(2);
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("In Paris it is");
    await waitForStatus(page, "WAITING");
    await expect.poll(() => positions(page), { timeout: 20_000 }).toEqual(["2/2"]);
    const second = firstAnswer(await thread(threadId));
    expect(second).not.toBe(first);
    expect(await switches(page).first().getAttribute("data-message-id")).toBe(second);
    await screenshot(page, "50-regenerated-2-of-2");

    await page.getByTestId("branch-prev").click();
    await expect.poll(() => positions(page)).toEqual(["1/2"]);
    expect(await switches(page).first().getAttribute("data-message-id")).toBe(first);
    await screenshot(page, "51-branch-1-of-2");
    // A reload shows the branch chosen, not the thread's current one.
    await reload(page);
    await expect.poll(() => positions(page), { timeout: 20_000 }).toEqual(["1/2"]);
    expect(await switches(page).first().getAttribute("data-message-id")).toBe(first);
    // Looking is not changing: the thread's current branch is still the regenerated one.
    expect((await thread(threadId)).messages.map((m) => m.id)).toContain(second);
    await page.getByTestId("branch-next").click();
    await expect.poll(() => positions(page)).toEqual(["2/2"]);
    await reload(page);
    await expect.poll(() => positions(page), { timeout: 20_000 }).toEqual(["2/2"]);

    // Edit the question: the user message is 2/2 (Tokyo); 1/2 is Paris, with its two answers.
    await waitForStatus(page, "WAITING");
    await page.getByTestId("copilot-user-message").first().hover();
    await page.getByRole("button", { name: "Edit", exact: true }).first().click({ force: true });
    await page.getByTestId("edit-text").fill("What's the weather in Tokyo?");
    await page.getByTestId("edit-save").click();
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("In Tokyo it is");
    await waitForStatus(page, "WAITING");
    await expect.poll(() => positions(page), { timeout: 20_000 }).toEqual(["2/2"]);
    await screenshot(page, "52-edited-2-of-2");
    await page.getByTestId("branch-prev").click();
    await expect.poll(() => userTexts(page)).toEqual([expect.stringContaining("Paris")]);
    await expect.poll(() => positions(page)).toEqual(["1/2", "2/2"]);
    await reload(page);
    await expect.poll(() => userTexts(page), { timeout: 20_000 }).toEqual([expect.stringContaining("Paris")]);
    await expect.poll(() => positions(page), { timeout: 20_000 }).toEqual(["1/2", "2/2"]);
    await screenshot(page, "53-edit-branch-1-of-2-after-reload");

    // Sending from the Paris branch forks the thread there; Tokyo stays one click away.
    await send(page, "And in Rome?");
    await expect.poll(() => userTexts(page), { timeout: 20_000 }).toEqual([expect.stringContaining("Paris"), expect.stringContaining("Rome")]);
    await waitForStatus(page, "WAITING");
    const now = await thread(threadId);
    expect(now.branches).toHaveLength(4);
    expect(now.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["What's the weather in Paris?", "And in Rome?"]);
    expect(now.messages.map((m) => m.id)).toContain(second);
    await expect.poll(() => positions(page), { timeout: 20_000 }).toEqual(["1/2", "2/2"]);
    await reload(page);
    await expect.poll(() => userTexts(page), { timeout: 20_000 }).toEqual([expect.stringContaining("Paris"), expect.stringContaining("Rome")]);
    await page.getByTestId("branch-next").first().click();
    await expect.poll(() => userTexts(page)).toEqual([expect.stringContaining("Tokyo")]);
    await screenshot(page, "54-back-to-tokyo");
    // Every branch is still on the server.
    const tokyo = now.branches.find((b) => b.branchId !== "main" && b.branchId !== now.branch && b.branchId !== now.branches[1]!.branchId)!;
    expect((await thread(threadId, `?branch=${tokyo.branchId}`)).messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["What's the weather in Tokyo?"]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
