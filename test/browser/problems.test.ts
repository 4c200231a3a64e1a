/**
 * What the app says when something goes wrong, where the person is looking. A page reached
 * through a forwarded port (here a TCP proxy on another port: the browser's Origin is not the
 * server's own, and ALLOWED_ORIGINS is unset) has its message refused with 403
 * ORIGIN_NOT_ALLOWED: the chat shows the server's sentence with the setting to change, keeps the
 * message to send again, and does not show it as sent. A failed run (the demo model's simulated
 * provider failure, HTTP 503) shows under its message what happened and what to do, and its
 * Retry runs the turn again.
 */
import { expect, it } from "vitest";
import { DEMO_FAILURE_PROMPT } from "../../server/demo/fixtures.ts";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.ts";
import { describeBrowser, launchBrowser, openApp, PHONE, screenshot, send, useApp, waitForStatus } from "./harness.ts";

describeBrowser("problems, said in the app", () => {
  const app = useApp();

  it("a forwarded port without ALLOWED_ORIGINS: the server's sentence and the fix at once, the message kept", async () => {
    const target = new URL(app.server.url);
    const proxy: TcpProxy = await startTcpProxy({ host: target.hostname, port: Number(target.port) });
    try {
      const page = await app.browser.newPage();
      const forwarded = `http://127.0.0.1:${proxy.port}`;
      await page.goto(forwarded);
      await page.waitForURL(/\/t\/[^/]+$/);
      await page.getByTestId("copilot-chat-textarea").waitFor();
      await send(page, "Hello from a forwarded port");
      const refused = page.getByTestId("refused");
      await refused.waitFor();
      expect(await refused.getAttribute("data-code")).toBe("ORIGIN_NOT_ALLOWED");
      const said = await page.getByTestId("refused-message").textContent();
      // The server's own sentence: the origin, the setting, and the value to give it.
      expect(said).toContain(`"${forwarded}"`);
      expect(said).toContain(`ALLOWED_ORIGINS=${forwarded}`);
      expect(await page.getByTestId("refused-text").textContent()).toBe("Hello from a forwarded port");
      // Not shown as sent, and the input takes a message again.
      expect(await page.getByTestId("copilot-user-message").count()).toBe(0);
      await page.locator('[data-testid="chat-input"][data-enabled="true"]').waitFor();
      await screenshot(page, "problems-1-origin-refused");
      await page.getByTestId("refused-dismiss").click();
      expect(await refused.count()).toBe(0);
      await page.close();
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it("a failed run: under its message what happened and what to do; Retry runs it again", async () => {
    const page = await app.browser.newPage();
    await openApp(page, app.server.url);
    await send(page, DEMO_FAILURE_PROMPT);
    await waitForStatus(page, "FAILED", 30_000);
    const notice = page.getByTestId("error-banner");
    await notice.waitFor();
    // Under the message it is about, in the chat, not in the top bar.
    expect(await page.locator('[data-testid="chat"] [data-testid="error-banner"]').count()).toBe(1);
    const below = await page.evaluate(`(() => {
      const m = [...document.querySelectorAll('[data-testid="copilot-user-message"]')].at(-1);
      const n = document.querySelector('[data-testid="error-banner"]');
      return !!m && !!(m.compareDocumentPosition(n) & Node.DOCUMENT_POSITION_FOLLOWING);
    })()`);
    expect(below).toBe(true);
    expect(await page.getByTestId("failure-message").textContent()).toContain("503");
    expect(await page.getByTestId("failure-fix").textContent()).toContain("Retry");
    await screenshot(page, "problems-2-run-failed");

    await notice.getByTestId("retry-button").click();
    await waitForStatus(page, "RUNNING").catch(() => undefined);
    await waitForStatus(page, "FAILED", 30_000);
    await page.getByTestId("error-banner").waitFor();
    expect(await page.getByTestId("copilot-user-message").count()).toBe(1);
    await page.close();
  }, 90_000);

  it("on a phone, the failed run's notice and its Retry are on the screen, above the input", async () => {
    const phone = await launchBrowser(PHONE);
    try {
      const page = await phone.newPage();
      await openApp(page, app.server.url);
      await send(page, DEMO_FAILURE_PROMPT);
      await waitForStatus(page, "FAILED", 30_000);
      const retry = page.getByTestId("retry-button");
      await retry.waitFor();
      const box = (await retry.boundingBox())!;
      const input = (await page.getByTestId("chat-input").boundingBox())!;
      expect(box.y + box.height).toBeLessThanOrEqual(input.y);
      expect(box.y).toBeGreaterThanOrEqual(0);
      await screenshot(page, "problems-3-phone-run-failed");
    } finally {
      await phone.close();
    }
  }, 60_000);
});
