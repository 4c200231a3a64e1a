/**
 * A markdown table's header lines up with its body (issue 32): each column's header cell starts
 * where the column's body cells start and is as wide, at a desktop's window and at a phone's.
 * The cause was CopilotKit's flex rule for streamdown's "table-wrapper", which the <table> carries
 * too (markdown/markdown.css): a flex table lays out its <thead> and <tbody> as two tables.
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { DEMO_PROMPTS } from "../../server/demo/fixtures.ts";
import { assistantMessages, DESKTOP, type Device, describeBrowser, launchBrowser, openApp, PHONE, screenshot, send, useApp, waitForStatus } from "./harness.ts";

interface Box {
  x: number;
  width: number;
}

/** Per column, the header cell's box and each body cell's, as drawn. (A string: no DOM types here.) */
const COLUMNS = `(() => {
  const table = [...document.querySelectorAll('[data-testid="copilot-assistant-message"] table')].at(-1);
  const box = (c) => { const r = c.getBoundingClientRect(); return { x: r.x, width: r.width }; };
  const heads = [...table.querySelectorAll("thead th")].map(box);
  const rows = [...table.querySelectorAll("tbody tr")].map((tr) => [...tr.querySelectorAll("td")].map(box));
  return { heads, rows, display: getComputedStyle(table).display };
})()`;

describeBrowser("markdown tables: header and body columns line up", () => {
  const app = useApp();

  async function weatherTable(page: Page, name: string): Promise<void> {
    await openApp(page, app.server.url);
    await send(page, DEMO_PROMPTS.parallel);
    await waitForStatus(page, "WAITING", 30_000);
    const table = assistantMessages(page).last().locator("table");
    await expect.poll(() => table.locator("tr").count(), { timeout: 20_000 }).toBe(3);
    const { heads, rows, display } = (await page.evaluate(COLUMNS)) as { heads: Box[]; rows: Box[][]; display: string };
    expect(heads).toHaveLength(3);
    for (const row of rows) {
      expect(row).toHaveLength(heads.length);
      row.forEach((cell, i) => {
        expect(Math.abs(cell.x - heads[i]!.x), `column ${i + 1}'s left edge`).toBeLessThan(1);
        expect(Math.abs(cell.width - heads[i]!.width), `column ${i + 1}'s width`).toBeLessThan(1);
      });
    }
    expect(display).toBe("table");
    await table.scrollIntoViewIfNeeded();
    await screenshot(page, name);
  }

  for (const [label, device] of [["desktop", DESKTOP], ["phone", PHONE]] as [string, Device][]) {
    it(`at a ${label}'s size`, { timeout: 90_000 }, async () => {
      const browser = device === DESKTOP ? app.browser : await launchBrowser(device);
      try {
        const page = await browser.newPage();
        await weatherTable(page, `table-columns-${label}`);
        await page.close();
      } finally {
        if (browser !== app.browser) await browser.close();
      }
    });
  }
});
