/**
 * The coding agent's page, end to end against the offline demo model's coding session (write
 * hello.py, run it, edit it, run it again, read it): the terminal cards stream coloured output
 * and end with the exit code, the write, edit and read cards show the file and the diff, the
 * workspace panel lists hello.py and opens it; a reload in the middle of a command shows the
 * output so far and follows the rest, without a line twice.
 *
 * Needs a server that hosts the "coding" agent (GET /api/agents); without it every test here
 * skips, saying so.
 */
import type { Page } from "playwright-core";
import { beforeAll, expect, it } from "vitest";
import { assistantMessages, consoleErrors, describeBrowser, openApp, screenshot, send, useApp, waitForStatus } from "./harness.ts";

const PROMPT = "Write hello.py, run it, then change the greeting and run it again";

describeBrowser("coding agent in the browser", () => {
  const app = useApp();
  let hosted = false;
  const NOT_HOSTED = 'GET /api/agents does not list "coding": the coding agent is not on this server yet, so its browser tests skip.';

  beforeAll(async () => {
    const res = await fetch(`${app.server.url}/api/agents`);
    const { agents } = (await res.json()) as { agents: { id: string }[] };
    hosted = agents.some((a) => a.id === "coding");
    if (!hosted) console.warn(`[browser tests] ${NOT_HOSTED}`);
  });

  const card = (page: Page, tool: string, n = 0) => page.locator(`[data-testid="tool-card"][data-tool="${tool}"]`).nth(n);
  const terminalText = (page: Page, n: number) => card(page, "bash", n).getByTestId("terminal").textContent();

  it("a scripted session shows every card and the workspace", async (ctx) => {
    if (!hosted) ctx.skip(NOT_HOSTED);
    const page = await app.browser.newPage();
    await openApp(page, app.server.url, { feature: "coding" });
    expect(await page.getByTestId("app").getAttribute("data-agent")).toBe("coding");
    await page.getByTestId("workspace-panel").waitFor();
    await send(page, PROMPT);

    // write: the file card with the content.
    const write = card(page, "write");
    await expect.poll(() => write.getByTestId("file-content").textContent().catch(() => ""), { timeout: 20_000 }).toContain('print(greet("world")');
    expect(await write.getByTestId("file-path").textContent()).toBe("hello.py");

    // bash: the output arrives while the command runs, in colour.
    const first = card(page, "bash", 0);
    await expect.poll(() => terminalText(page, 0), { timeout: 20_000 }).toContain("Hello, world!");
    const green = first.locator("[data-ansi]", { hasText: "Hello, world!" });
    // anser's green, in bold: the script prints it with \033[1m\033[32m.
    const style = await green.first().getAttribute("style");
    expect(style).toContain("color: rgb(0, 187, 0)");
    expect(style).toContain("font-weight: 700");
    if ((await first.getAttribute("data-status")) === "Running") await screenshot(page, "30a-coding-terminal-live");
    await expect.poll(() => first.getByTestId("exit-code").getAttribute("data-exit"), { timeout: 20_000 }).toBe("0");
    expect(await terminalText(page, 0)).toContain("step 5/5");
    expect(await first.locator('[data-stream="stderr"]').textContent()).toContain("stderr");

    // edit: the diff, one line out and one in.
    const edit = card(page, "edit");
    await edit.getByTestId("diff").waitFor({ timeout: 20_000 });
    expect(await edit.locator('[data-kind="del"]').first().textContent()).toContain('greet("world")');
    expect(await edit.locator('[data-kind="add"]').first().textContent()).toContain('greet("Threadline")');

    // bash again, with the new greeting; then read; then the summary.
    await expect.poll(() => terminalText(page, 1), { timeout: 20_000 }).toContain("Hello, Threadline!");
    await expect.poll(() => card(page, "bash", 1).getByTestId("exit-code").getAttribute("data-exit"), { timeout: 20_000 }).toBe("0");
    await expect.poll(() => card(page, "read").getByTestId("read-content").textContent().catch(() => ""), { timeout: 20_000 }).toContain('greet("Threadline")');
    await waitForStatus(page, "WAITING", 30_000);
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("Done.");
    await screenshot(page, "30b-coding-session-cards");
    await card(page, "edit").scrollIntoViewIfNeeded();
    await screenshot(page, "30d-coding-edit-card");

    // The workspace lists the file; a click opens its current content.
    const file = page.locator('[data-testid="workspace-file"][data-path="hello.py"]');
    await file.waitFor({ timeout: 20_000 });
    await file.click();
    await expect.poll(() => page.getByTestId("workspace-file-text").textContent(), { timeout: 20_000 }).toContain('greet("Threadline")');
    await screenshot(page, "30c-coding-workspace-open");

    // After a reload, the finished session draws the same cards (output from the results).
    await page.reload();
    await waitForStatus(page, "WAITING");
    await expect.poll(() => terminalText(page, 1), { timeout: 20_000 }).toContain("Hello, Threadline!");
    expect(await card(page, "edit").locator('[data-kind="add"]').count()).toBeGreaterThan(0);
    await page.locator('[data-testid="workspace-file"][data-path="hello.py"]').waitFor({ timeout: 20_000 });
    expect(consoleErrors(page)).toEqual([]);
    await page.close();
  });

  it("a reload in the middle of a command shows the output so far, then the rest, each line once", async (ctx) => {
    if (!hosted) ctx.skip(NOT_HOSTED);
    const page = await app.browser.newPage();
    const threadId = await openApp(page, app.server.url, { feature: "coding" });
    await send(page, PROMPT);
    await expect.poll(() => terminalText(page, 0).catch(() => ""), { timeout: 20_000 }).toContain("step 1/5");

    await page.reload();
    expect(page.url()).toContain(`/t/${threadId}`);
    await expect.poll(() => terminalText(page, 0).catch(() => ""), { timeout: 20_000 }).toContain("Hello, world!");
    await screenshot(page, "31a-coding-reload-mid-command");
    await expect.poll(() => card(page, "bash", 0).getByTestId("exit-code").getAttribute("data-exit").catch(() => null), { timeout: 20_000 }).toBe("0");
    const text = (await terminalText(page, 0)) ?? "";
    for (let step = 1; step <= 5; step++) expect(text.split(`step ${step}/5`).length - 1).toBe(1);
    expect(text.split("Hello, world!").length - 1).toBe(1);
    await waitForStatus(page, "WAITING", 30_000);
    await screenshot(page, "31b-coding-reload-finished");
    await page.close();
  });
});
