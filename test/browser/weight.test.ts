/**
 * What the first load of `/` costs: the JavaScript as sent (compressed), counted by Chromium
 * itself, at most 700 KB; none of it KaTeX or the v1 page, which load when used. The static
 * route's headers as the browser gets them: Brotli, hashed assets cached for good, the page
 * never without asking. KaTeX then arrives with the first message that has math.
 */
import type { Response } from "playwright-core";
import { expect, it } from "vitest";
import { assistantMessages, describeBrowser, openApp, screenshot, send, useApp, waitForStatus } from "./harness.ts";

const BUDGET = 700 * 1024;

describeBrowser("the app's weight", () => {
  const app = useApp();

  it("the first load of / sends at most 700 KB of compressed JavaScript, without KaTeX or the v1 page", async () => {
    const page = await app.browser.newPage();
    const scripts: Response[] = [];
    page.on("response", (r) => {
      if (r.request().resourceType() === "script") scripts.push(r);
    });
    const [document] = await Promise.all([page.waitForResponse((r) => r.request().resourceType() === "document"), openApp(page, app.server.url)]);
    await page.waitForLoadState("networkidle");

    expect(document.headers()["cache-control"]).toBe("no-cache");
    expect(document.headers()["content-encoding"]).toBe("br");
    let sent = 0;
    let raw = 0;
    for (const r of scripts) {
      const name = new URL(r.url()).pathname;
      expect(r.status(), name).toBe(200);
      expect(name, "only the app's own scripts").toMatch(/^\/assets\/[\w.-]+-[\w-]{8}\.js$/);
      const headers = r.headers();
      expect(headers["cache-control"], name).toBe("public, max-age=31536000, immutable");
      // Chromium asks for "gzip, deflate, br, zstd": Brotli wins for every file big enough to compress.
      if ((await r.body()).length > 1024) expect(headers["content-encoding"], name).toBe("br");
      sent += (await r.request().sizes()).responseBodySize;
      raw += (await r.body()).length;
    }
    const names = scripts.map((r) => new URL(r.url()).pathname).join(" ");
    console.log(`first load of /: ${scripts.length} scripts, ${Math.round(sent / 1024)} KB sent, ${Math.round(raw / 1024)} KB uncompressed`);
    expect(scripts.length).toBeGreaterThan(0);
    expect(names).not.toMatch(/katex|V1Page/i);
    expect(sent).toBeLessThanOrEqual(BUDGET);
    expect(sent).toBeLessThan(raw / 3);
    await page.close();
  });

  it("KaTeX loads with the first message that has math, and the formula is typeset", async () => {
    const page = await app.browser.newPage();
    const katex = page.waitForResponse((r) => /\/assets\/katex-[\w-]+\.js$/.test(new URL(r.url()).pathname));
    await openApp(page, app.server.url);
    // The demo model repeats the plan's goal, math included.
    await send(page, "Make a plan to prove $$a^2+b^2=c^2$$");
    await katex;
    await waitForStatus(page, "WAITING", 40_000);
    await assistantMessages(page).first().locator(".katex").first().waitFor();
    // Its fonts are there as woff2 alone (client/katex-woff2-only.ts), and the browser loads them.
    const fonts = (await page.evaluate(`document.fonts.ready.then((set) => [...set].filter((f) => f.family.includes("KaTeX")).map((f) => f.status))`)) as string[];
    expect(fonts).toContain("loaded");
    expect(fonts).not.toContain("error");
    await screenshot(page, "43-math");
    await page.close();
  }, 60_000);
});
