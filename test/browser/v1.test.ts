/** The v1 compatibility page: react-ui's CopilotSidebar, useCoAgent and useCopilotAction on our runtime. */
import { expect, it } from "vitest";
import { describeBrowser, screenshot, useApp } from "./harness.ts";

describeBrowser("the v1 page in the browser", () => {
  const app = useApp();

  it("answers in CopilotSidebar, shows useCoAgent state, and runs a useCopilotAction handler", async () => {
    const page = await app.browser.newPage();
    await page.goto(`${app.server.url}/v1`);
    await page.getByTestId("v1-page").waitFor({ timeout: 20_000 });
    expect(page.url()).toMatch(/\/v1\?thread=/);
    const input = page.locator(".copilotKitInput textarea");
    const assistant = page.locator(".copilotKitAssistantMessage");
    const threadId = new URL(page.url()).searchParams.get("thread");
    const settled = async () => {
      const res = await fetch(`${app.server.url}/api/threads/${threadId}`);
      return res.ok ? ((await res.json()) as { status: string }).status : "NEW";
    };
    const say = async (text: string, expected: string) => {
      // react-ui ignores Enter while its last run is still finishing.
      await expect.poll(settled, { timeout: 20_000 }).toMatch(/^(NEW|WAITING)$/);
      await page.waitForTimeout(300);
      const before = await assistant.count();
      await input.fill(text);
      await input.press("Enter");
      await expect
        .poll(async () => ((await assistant.count()) > before ? await assistant.last().textContent() : ""), { timeout: 20_000 })
        .toContain(expected)
        .catch(async (err: unknown) => {
          await screenshot(page, "08-v1-page-failed");
          throw err;
        });
    };

    await say("Hello", "OPENAI_API_KEY");
    await say("Add a task: water the plants", "Your task list is updated");
    await expect.poll(() => page.getByTestId("v1-task").count(), { timeout: 10_000 }).toBe(3);
    await say("Change the background to teal", "Done!");
    await expect.poll(() => page.getByTestId("v1-page").getAttribute("data-background")).toBe("teal");
    await screenshot(page, "08-v1-page");
    await page.close();
  });
});
