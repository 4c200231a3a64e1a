/**
 * Browser tests' harness: the real server in-process (createThreadline on in-memory PGlite, or a
 * fresh schema of the Postgres at DATABASE_URL; the built-in demo model), the built client app,
 * and Debian's headless Chromium driven by playwright-core. Never a downloaded browser: without
 * /usr/bin/chromium the suites skip, loudly.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { describe, afterAll, beforeAll } from "vitest";
import { ensureClientBuilt } from "../../client/build.ts";
import { approvalsAgent } from "../../server/agents/approvals-agent.ts";
import { codingAgent } from "../../server/agents/coding-agent.ts";
import { defaultAgent } from "../../server/agents/default-agent.ts";
import type { AgentDefinition } from "../../server/agents/define.ts";
import { demoAgents } from "../../server/agents/demos/index.ts";
import { workspaceHostFromConfig } from "../../server/workspace/tools.ts";
import type { EventStore } from "../../server/store/types.ts";
import type { Threadline } from "../../server/threadline.ts";
import { backends, openStore as openBackendStore, startTestServer, testSchema } from "../support/server.ts";

export const CHROMIUM = "/usr/bin/chromium";
export const hasChromium = existsSync(CHROMIUM);
export const SCREENSHOTS = path.resolve(import.meta.dirname, "../../test-output/screenshots");

/**
 * A browser test is retried (at most twice) when it fails. What these tests drive is CopilotKit's
 * client in Chromium on a shared 2-core machine: under load it was seen to drop a run started
 * while it still handled a connect, and to miss a 20 s wait for a first answer that takes a second
 * alone. A retry that passes is still reported by vitest; every server-side behaviour these pages
 * show is tested without a browser, deterministically, elsewhere. Rejected: longer waits, which
 * would not help the dropped run.
 */
const BROWSER_RETRIES = 2;

/** `describe`, or `describe.skip` with a warning when Chromium is not installed. */
export function describeBrowser(name: string, fn: () => void): void {
  if (!hasChromium) {
    console.warn(`[browser tests] ${CHROMIUM} not found: "${name}" skipped. Install it with: apt-get install -y chromium`);
    describe.skip(name, fn);
    return;
  }
  describe(name, { retry: BROWSER_RETRIES }, fn);
}

/** Postgres when DATABASE_URL is set, else PGlite: the browser suites run on one backend. */
const BACKEND = backends().at(-1)!;

export function openStore(schema = testSchema("b")): EventStore {
  return openBackendStore(BACKEND, schema);
}

export interface AppServer {
  url: string;
  threadline: Threadline;
  close(): Promise<void>;
}

/** The test server (test/support/server.ts) with the built client app and the demo model. */
export async function startServer(
  opts: {
    store?: EventStore;
    planStepDelayMs?: number;
    leaseOwner?: string;
    /** Hosted besides the default and demo agents; one with a built-in agent's id replaces it (the app's `/` page is `default`). */
    agents?: AgentDefinition[];
  } = {},
): Promise<AppServer> {
  await ensureClientBuilt({ quiet: true });
  const delay = opts.planStepDelayMs ?? 50;
  const extra = opts.agents ?? [];
  const replaced = new Set(extra.map((a) => a.id));
  return startTestServer({
    backend: BACKEND,
    store: opts.store,
    leaseOwner: opts.leaseOwner,
    // no llmUrl: the built-in demo model answers, as for a user who runs `npm start` without a key
    agents: (config) => [
      ...[
        defaultAgent({ planStepDelayMs: delay }),
        approvalsAgent(),
        codingAgent({ host: workspaceHostFromConfig(config) }),
        ...demoAgents({ planStepDelayMs: delay }),
      ].filter((a) => !replaced.has(a.id)),
      ...extra,
    ],
  });
}

export interface Browser {
  context: BrowserContext;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

const pageErrors = new WeakMap<Page, string[]>();

/** The console errors and uncaught exceptions of a page opened with Browser.newPage, so far. */
export function consoleErrors(page: Page): string[] {
  return [...(pageErrors.get(page) ?? [])];
}

/** The screen a browser emulates: a desktop window by default. */
export interface Device {
  viewport: { width: number; height: number };
  hasTouch?: boolean;
  isMobile?: boolean;
  deviceScaleFactor?: number;
}

export const DESKTOP: Device = { viewport: { width: 1400, height: 900 } };
/** A phone held upright (an iPhone 12-15's CSS size), driven by taps. */
export const PHONE: Device = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 };

export async function launchBrowser(device: Device = DESKTOP): Promise<Browser> {
  const profile = mkdtempSync(path.join(tmpdir(), "threadline-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    ...device,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const errors: string[] = [];
  context.on("weberror", (e) => errors.push(String(e.error())));
  return {
    context,
    async newPage() {
      const page = await context.newPage();
      const errors: string[] = [];
      pageErrors.set(page, errors);
      page.on("pageerror", (e) => {
        console.warn(`[page error] ${e.message}`);
        errors.push(`pageerror: ${e.message}`);
      });
      // What a person would see in the console as red: errors, failed loads (404s) included.
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(`console: ${m.text()} (${m.location().url})`);
      });
      return page;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
}

/**
 * Opens the app on a new thread and waits until the chat can take a message; resolves with the
 * thread id. By default as a person does it (the app mints the id, so it knows the thread is not
 * on the server yet); `threadId` opens that address instead, as a link shared from elsewhere
 * would, which the app takes to be a thread that exists or will. `feature`: a demo page's slug.
 */
export async function openApp(page: Page, baseUrl: string, opts: { feature?: string; threadId?: string } = {}): Promise<string> {
  const base = opts.feature ? `${baseUrl}/demos/${opts.feature}` : baseUrl;
  await page.goto(opts.threadId ? `${base}/t/${encodeURIComponent(opts.threadId)}` : base || "/");
  await page.waitForURL(/\/t\/[^/]+$/);
  await page.getByTestId("copilot-chat-textarea").waitFor();
  await page.locator('[data-testid="chat-input"][data-enabled="true"]').waitFor();
  return decodeURIComponent(new URL(page.url()).pathname.split("/t/")[1]!);
}

/** Opens the side column (the shared state, or a demo's panel), unless it is open already (the app remembers). */
export async function openSidePanel(page: Page): Promise<void> {
  const toggle = page.getByTestId("toggle-panels");
  if ((await toggle.getAttribute("aria-expanded")) !== "true") await toggle.click();
  await page.getByTestId("drawer-panels").waitFor();
}

/** Opens the side column and, in it, the raw workflow events. */
export async function openEvents(page: Page): Promise<void> {
  await openSidePanel(page);
  const toggle = page.getByTestId("events-toggle");
  if ((await toggle.getAttribute("aria-expanded")) !== "true") await toggle.click();
  await page.getByTestId("event-list").waitFor();
}

export async function send(page: Page, text: string): Promise<void> {
  const input = page.getByTestId("copilot-chat-textarea");
  await page.locator('[data-testid="chat-input"][data-enabled="true"]').waitFor();
  await input.fill(text);
  await input.press("Enter");
}

/** Waits for the thread's durable status (the chrome's data-status). */
export async function waitForStatus(page: Page, status: string, timeout = 20_000): Promise<void> {
  await page.locator(`[data-testid="thread-status"][data-status="${status}"]`).waitFor({ timeout });
}

export function assistantMessages(page: Page) {
  return page.getByTestId("copilot-assistant-message");
}

/**
 * One server and one browser for a whole test file, started before its tests and stopped after:
 * `const app = useApp()` then `app.server.url`, `app.browser.newPage()` inside the tests.
 */
export function useApp(opts: Parameters<typeof startServer>[0] = {}, device: Device = DESKTOP): { readonly server: AppServer; readonly browser: Browser } {
  const ctx = {} as { server: AppServer; browser: Browser };
  beforeAll(async () => {
    ctx.server = await startServer(opts);
    ctx.browser = await launchBrowser(device);
  }, 180_000);
  afterAll(async () => {
    await ctx.browser?.close();
    await ctx.server?.close();
  });
  return ctx;
}

