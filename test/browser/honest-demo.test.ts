/**
 * An honest offline demo (issue 32, deliver 9), in the browser: a plan whose tool fails is
 * answered with what failed, on a card that says Failed, never "All 4 steps … are done"; the
 * demo's markdown answers (a list, inline code, a code block, a table) are drawn by the renderer,
 * not shown as their marks; the reasoning's header reads "Thought for …" through the app's
 * header (its singular second is test/client/reasoning-label.test.ts's). axe on each.
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { defineAgent, defineTool } from "../../server/agents/define.ts";
import { DEMO_PROMPTS, RunPlanArgsSchema } from "../../server/demo/fixtures.ts";
import { axeViolations, blocking } from "./axe.ts";
import { assistantMessages, consoleErrors, describeBrowser, openApp, PHONE, screenshot, send, useApp, waitForStatus } from "./harness.ts";

/** An agent whose run_plan stops at its third step with an error, as a build server that is down would. */
const flaky = defineAgent({
  id: "flaky",
  description: "Plans that fail at the third step.",
  instructions: "Use run_plan.",
  tools: [
    defineTool({
      name: "run_plan",
      description: "Carry out a multi-step plan.",
      inputSchema: RunPlanArgsSchema,
      async execute({ steps }, ctx) {
        for (const [i, step] of steps.entries()) {
          await ctx.terminal(`[${i + 1}/${steps.length}] ${step}\n`);
          if (i === 2) throw new Error("step 3 could not reach the build server");
        }
        return { completed: steps.length };
      },
    }),
  ],
});

/**
 * Inline code in the last answer as it is drawn: its text with what CSS puts before and after it (the
 * prose styles drew a backtick each side; innerText does not see those).
 */
async function drawnInlineCode(page: Page): Promise<string[]> {
  // A string: this file is type-checked without the DOM library.
  return (await page.evaluate(`[...[...document.querySelectorAll('[data-testid="copilot-assistant-message"]')].at(-1).querySelectorAll(":not(pre) > code")].map((el) => {
    const mark = (where) => { const c = getComputedStyle(el, where).content; return c === "none" || c === "normal" ? "" : c.replace(/^"|"$/g, ""); };
    return mark("::before") + el.textContent + mark("::after");
  })`)) as string[];
}

async function axeClean(page: Page): Promise<void> {
  expect(blocking(await axeViolations(page))).toEqual([]);
}

describeBrowser("an honest demo in the browser", () => {
  const app = useApp({ agents: [flaky] });

  it("a plan whose tool fails: the card says Failed, the answer says what failed, not that the steps are done", async () => {
    const page = await app.browser.newPage();
    await openApp(page, `${app.server.url}/agents/flaky`);
    await send(page, DEMO_PROMPTS.plan);
    await waitForStatus(page, "WAITING", 30_000);
    const answer = assistantMessages(page).last();
    await expect.poll(() => answer.textContent(), { timeout: 20_000 }).toContain("That did not work");
    const text = (await answer.innerText()).replace(/\s+/g, " ");
    expect(text).toContain("run_plan failed: step 3 could not reach the build server.");
    expect(text).toContain("I have not finished what you asked");
    expect(text).not.toContain("are done");
    // The tool's name as inline code: a <code>, drawn without backticks.
    expect(await drawnInlineCode(page)).toEqual(["run_plan"]);
    expect(text).not.toContain("`");
    const card = page.locator('[data-testid="tool-card"][data-tool="run_plan"]');
    await expect.poll(() => card.getAttribute("data-status"), { timeout: 20_000 }).toBe("Failed");
    await answer.scrollIntoViewIfNeeded();
    await screenshot(page, "100-demo-tool-failed");
    await axeClean(page);
    expect(consoleErrors(page)).toEqual([]);
    await page.close();
  });

  it("the offline answer is markdown drawn: a list of prompts, settings as inline code, the command as a code block", async () => {
    const page = await app.browser.newPage();
    await openApp(page, app.server.url);
    await send(page, "Hello!");
    await waitForStatus(page, "WAITING", 30_000);
    const answer = assistantMessages(page).last();
    await expect.poll(() => answer.locator("li").count(), { timeout: 20_000 }).toBe(7);
    expect(await answer.locator("li").first().innerText()).toBe(DEMO_PROMPTS.weather);
    expect(await drawnInlineCode(page)).toEqual(["OPENAI_API_KEY", "OPENAI_BASE_URL", "MODEL=anthropic:<model>", "ANTHROPIC_API_KEY"]);
    await expect.poll(() => answer.locator("pre").first().innerText(), { timeout: 20_000 }).toContain("OPENAI_API_KEY=sk-... npm start");
    const shown = await answer.innerText();
    expect(shown).not.toContain("`");
    expect(shown).not.toMatch(/^- /m);
    await answer.scrollIntoViewIfNeeded();
    await screenshot(page, "101-demo-markdown-answer");
    await axeClean(page);
    await page.close();
  });

  it("two places' weather is a table; a plan's wrap-up a numbered list; the reasoning's header says how long it thought", async () => {
    const page = await app.browser.newPage();
    await openApp(page, app.server.url);
    await send(page, DEMO_PROMPTS.parallel);
    await waitForStatus(page, "WAITING", 30_000);
    const table = assistantMessages(page).last().locator("table");
    await expect.poll(() => table.locator("tr").count(), { timeout: 20_000 }).toBe(3);
    expect(await table.locator("th").allInnerTexts()).toEqual(["Place", "Temperature", "Conditions"]);
    expect(await table.locator("tbody tr td:first-child").allInnerTexts()).toEqual(["Paris", "Tokyo"]);
    await table.scrollIntoViewIfNeeded();
    await screenshot(page, "102-demo-weather-table");
    await axeClean(page);

    await send(page, DEMO_PROMPTS.plan);
    await waitForStatus(page, "WAITING", 30_000);
    const steps = assistantMessages(page).last().locator("ol > li");
    await expect.poll(() => steps.allInnerTexts(), { timeout: 20_000 }).toEqual(["Understand the goal", "Break it into steps", "Do the work", "Check the result"]);

    await send(page, DEMO_PROMPTS.reasoning);
    await waitForStatus(page, "WAITING", 30_000);
    const reasoning = page.getByTestId("reasoning-message").last();
    await expect.poll(() => reasoning.innerText(), { timeout: 20_000 }).toMatch(/^Thought for (a few seconds|1 second|\d+ seconds)\b/);
    expect(await reasoning.innerText()).not.toMatch(/\b1 seconds\b/);
    await page.close();
  });
});

describeBrowser("an honest demo on a phone", () => {
  const app = useApp({ agents: [flaky] }, PHONE);

  it("the failed plan's answer and the markdown answer fit a phone's width, tapped", async () => {
    const page = await app.browser.newPage();
    await openApp(page, `${app.server.url}/agents/flaky`);
    await page.getByTestId("copilot-chat-textarea").tap();
    await page.keyboard.type(DEMO_PROMPTS.plan);
    await page.getByRole("button", { name: "Send the message" }).tap();
    await waitForStatus(page, "WAITING", 30_000);
    const answer = assistantMessages(page).last();
    await expect.poll(() => answer.textContent(), { timeout: 20_000 }).toContain("That did not work");
    // Nothing wider than the screen: no sideways scroll on a phone.
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    await answer.scrollIntoViewIfNeeded();
    await screenshot(page, "103-phone-demo-tool-failed");
    await axeClean(page);
    await page.close();
  });
});
