/**
 * `npm run screenshots`: the app's pictures in docs/ (app-desktop.png, app-phone.png and their
 * -dark twins), taken from the real thing: the server with the built-in demo model on an embedded
 * database in a temporary directory, the built client, and Debian's Chromium driven by
 * playwright-core. One short conversation (two tool calls, then a markdown table) is had once;
 * each picture then opens that thread, so all four show the same stored conversation, dark ones
 * through prefers-color-scheme as a browser set to dark asks for it.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type Browser, type BrowserContextOptions, type Page } from "playwright-core";
import { ensureClientBuilt } from "../client/build.ts";
import { DEMO_PROMPTS } from "../server/demo/fixtures.ts";
import { createLogger } from "../server/logger.ts";
import { createThreadline } from "../server/threadline.ts";

const CHROMIUM = "/usr/bin/chromium";
const DOCS = path.resolve(import.meta.dirname, "../docs");
/** Above this a picture is too heavy for a README; said, not failed. */
const MAX_BYTES = 300 * 1024;

const DEVICES: Record<"desktop" | "phone", BrowserContextOptions> = {
  desktop: { viewport: { width: 1280, height: 900 } },
  phone: { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 },
};

if (!existsSync(CHROMIUM)) {
  console.error(`screenshots: ${CHROMIUM} not found. Install it with: apt-get install -y chromium`);
  process.exit(1);
}

await ensureClientBuilt({ quiet: true });
const dataDir = mkdtempSync(path.join(tmpdir(), "threadline-screenshots-"));
const threadline = createThreadline({ logger: createLogger("warn"), dataDir, model: "demo" });
let browser: Browser | undefined;
try {
  const port = await threadline.listen(0, "127.0.0.1");
  const base = `http://127.0.0.1:${port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu", "--no-first-run"] });

  const threadUrl = await converse(browser, base);
  for (const [device, options] of Object.entries(DEVICES)) {
    for (const dark of [false, true]) {
      const file = path.join(DOCS, `app-${device}${dark ? "-dark" : ""}.png`);
      await picture(browser, threadUrl, { ...options, colorScheme: dark ? "dark" : "light" }, file);
      const size = statSync(file).size;
      console.log(`screenshots: ${path.relative(process.cwd(), file)} (${Math.round(size / 1024)} KB)${size > MAX_BYTES ? ` is over ${MAX_BYTES / 1024} KB` : ""}`);
    }
  }
} finally {
  await browser?.close();
  await threadline.close();
  rmSync(dataDir, { recursive: true, force: true });
}

/** The conversation, had once at a desktop's size; resolves with its thread's address. */
async function converse(browser: Browser, base: string): Promise<string> {
  const context = await browser.newContext(DEVICES.desktop);
  const page = await context.newPage();
  await page.goto(base);
  await page.waitForURL(/\/t\/[^/]+$/);
  await send(page, DEMO_PROMPTS.parallel);
  await page.locator('[data-testid="copilot-assistant-message"] table tr').nth(2).waitFor({ timeout: 30_000 });
  await settled(page);
  const url = page.url();
  await context.close();
  return url;
}

/** One picture of the thread at `url`, drawn from the stored thread. */
async function picture(browser: Browser, url: string, options: BrowserContextOptions, file: string): Promise<void> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  await page.goto(url);
  await page.locator('[data-testid="copilot-assistant-message"] table tr').nth(2).waitFor({ timeout: 30_000 });
  await settled(page);
  // Fonts and images in, and the chat scrolled to its end as a person returning to it sees it.
  await page.evaluate("document.fonts.ready");
  await page.locator('[data-testid="copilot-assistant-message"] table').last().scrollIntoViewIfNeeded();
  await page.mouse.move(0, 0);
  await page.screenshot({ path: file });
  await context.close();
}

async function send(page: Page, text: string): Promise<void> {
  await page.locator('[data-testid="chat-input"][data-enabled="true"]').waitFor({ timeout: 30_000 });
  const input = page.getByTestId("copilot-chat-textarea");
  await input.fill(text);
  await input.press("Enter");
}

/** The thread ready for the next message: the run over, the input open again. */
async function settled(page: Page): Promise<void> {
  await page.locator('[data-testid="thread-status"][data-status="WAITING"]').waitFor({ timeout: 30_000 });
  await page.locator('[data-testid="chat-input"][data-enabled="true"]').waitFor({ timeout: 30_000 });
}
