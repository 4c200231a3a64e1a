/**
 * The app on a server with API_KEYS (a form that asks for the key and says what is wrong; a key
 * in the address is stored and leaves it at once), and the app of an application that defines
 * its own agents (no built-in agent: the page works with them, no demo page is offered).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { ensureClientBuilt } from "../../client/build.ts";
import { defineAgent } from "../../server/agents/define.ts";
import { defaultAgent } from "../../server/agents/default-agent.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";
import { assistantMessages, type Browser, consoleErrors, describeBrowser, launchBrowser, screenshot, send, waitForStatus } from "./harness.ts";

const BACKEND = backends().at(-1)!;
const KEY = "k-browser-1";

describeBrowser("API keys and an application's own agents in the app", () => {
  let keyed: TestServer;
  let custom: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    await ensureClientBuilt({ quiet: true });
    keyed = await startTestServer({ backend: BACKEND, env: { API_KEYS: `acme:${KEY}` }, agents: [defaultAgent({ planStepDelayMs: 20 })] });
    const support = defineAgent({ id: "support", description: "Answers support questions.", instructions: "You help customers." });
    custom = await startTestServer({ backend: BACKEND, agents: [support] });
    browser = await launchBrowser();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await keyed?.close();
    await custom?.close();
  });

  it("no key, then a wrong key: the form says which; a good key opens the app and a message goes through", { timeout: 120_000 }, async () => {
    const page = await browser.newPage();
    await page.goto(keyed.url);
    const form = page.getByTestId("key-form");
    await form.waitFor();
    expect(await form.getAttribute("data-problem")).toBe("missing");
    expect(await page.getByTestId("key-problem").textContent()).toContain("needs an API key");
    await screenshot(page, "60-key-missing");
    await page.getByTestId("key-input").fill("not-the-key");
    await page.getByTestId("key-submit").click();
    await page.locator('[data-testid="key-form"][data-problem="wrong"]').waitFor();
    expect(await page.getByTestId("key-problem").textContent()).toContain("refused");
    await screenshot(page, "61-key-wrong");
    await page.getByTestId("key-input").fill(KEY);
    await page.getByTestId("key-submit").click();
    await page.locator('[data-testid="chat-input"][data-enabled="true"]').waitFor({ timeout: 20_000 });
    expect(await form.count()).toBe(0);
    await send(page, "hello with a key");
    await waitForStatus(page, "WAITING");
    await expect.poll(() => assistantMessages(page).count(), { timeout: 20_000 }).toBe(1);
    await page.close();
  });

  it("?apiKey= is stored and taken out of the address at once, and still works after a reload", { timeout: 120_000 }, async () => {
    // A fresh profile: nothing stored from the test before.
    const fresh = await launchBrowser();
    try {
      const page = await fresh.newPage();
      const errors = consoleErrors(page);
      await page.goto(`${keyed.url}/?apiKey=${KEY}`);
      // At once: the first address the app settles on has no key in it.
      await page.waitForURL(/\/t\/[^/?]+$/);
      expect(page.url()).not.toContain("apiKey");
      expect(await page.evaluate("history.length")).toBe(2); // the page as opened, then none added
      expect(await page.evaluate('localStorage.getItem("threadline.apiKey")')).toBe(KEY);
      await page.locator('[data-testid="chat-input"][data-enabled="true"]').waitFor({ timeout: 20_000 });
      await send(page, "hello from a link with a key");
      await waitForStatus(page, "WAITING");
      await page.reload();
      await expect.poll(() => assistantMessages(page).count(), { timeout: 20_000 }).toBe(1);
      expect(page.url()).not.toContain("apiKey");
      expect(await page.getByTestId("key-form").count()).toBe(0);
      await screenshot(page, "62-key-from-url-after-reload");
      expect(errors).toEqual([]);
    } finally {
      await fresh.close();
    }
  });

  it("an application of its own agents: the page works with them, and no demo page is offered", { timeout: 120_000 }, async () => {
    const page = await browser.newPage();
    const errors = consoleErrors(page);
    await page.goto(custom.url);
    await page.waitForURL(/\/t\/[^/]+$/);
    await page.locator('[data-testid="chat-input"][data-enabled="true"]').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId("app").getAttribute("data-agent")).toBe("support");
    const links = await page.getByTestId("demo-link").evaluateAll((as) => as.map((a) => [a.getAttribute("data-agent"), a.textContent]));
    expect(links).toEqual([["support", "support"]]);
    await send(page, "hello, support");
    await waitForStatus(page, "WAITING");
    await expect.poll(() => assistantMessages(page).count(), { timeout: 20_000 }).toBe(1);
    // A demo page's address on this server says what is missing instead of a blank page.
    await page.goto(`${custom.url}/demos/agentic-chat`);
    await page.getByTestId("no-agent").waitFor();
    expect(await page.getByTestId("no-agent").textContent()).toContain('needs the agent "agentic_chat"');
    await screenshot(page, "63-custom-agents-demo-absent");
    expect(errors).toEqual([]);
    await page.close();
  });
});
