/**
 * A tool's image in real Chromium: a backend tool returns a chart as content parts (MCP's
 * `{content: [{type: "text"}, {type: "image"}]}`); the app's tool card draws it from the thread
 * view's tool message (client/src/components/tool-images.ts), live and after a reload. The image
 * is decoded by the browser (naturalWidth), not only put in the page. The model is aimock behind
 * the real openai adapter, as the `default` agent of the app's `/` page.
 */
import { LLMock } from "@copilotkit/aimock";
import { copyFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool } from "../../server/agents/define.ts";
import { createOpenAIClient } from "../../server/models/openai/client.ts";
import { OpenAIModel } from "../../server/models/openai/model.ts";
import { assistantMessages, describeBrowser, launchBrowser, openApp, screenshot, SCREENSHOTS, send, startServer, type AppServer, type Browser } from "./harness.ts";

/** A 240x140 bar chart (four coloured bars on axes), PNG. */
const CHART_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAPAAAACMCAIAAADN17N/AAAB8klEQVR42u3SMQ2AMBRAQQQw4wAFVcDKTsKOJCTgrhgghAEFjP1pySVPwct11/1Iv6mzQEBLQEtAS0ALaAloCWgJaCkAdJoWBwW0BLQEtIAGWkBLQEtAS0ALaKAFtAS0BLQEtIAGWkDX3HDMYeEFNNACGmgBDTTQQAMNNNACGmgBDbSABhpooIEGGmgBDbSABhpooIEGGmiggQa6ofaUwwIaaKCBBhpooIEGGmiggQYaaKCBBhpooIEGGmiggQYaaKCBBhpooIEGGmiggQYaaKCBBhpooIEGGmiggQYaaKCBBhpooIEGGmiggQYaaKCBBhpooJsEPW5nWEADDTTQQAMNNNBAAw000EADDTTQQAMNNNBAAw000EADDTTQQAMNNNBAAw000EADDTTQQAMNNNBAAw000EADDTTQQAMNNNAtgM5rHxbQQAMNNNBAAw000EADDTTQQAMNNNBAAw000EADDTTQQAMNNNBAAw000EADDTTQQAMNNNBAAw000EADDTTQQAMNNNBAAw000EADDTTQQAMNNNBAAw000EADDTTQQAMNNNBAAw000EADDTTQQAMNNNBAAw000EADDTTQQAMNNNBAAw000EADDTTQQH+CluIrBVqqLaAFtAS0BLQEtICWgJaAloCWgBbQEtAS0FKRXtoCaW1MJOJLAAAAAElFTkSuQmCC";
const CHART_SIZE = { width: 240, height: 140 };
const REPLY = "Here is the sales chart.";
/** Where the brief's reviewers look at this test's picture (besides the harness's own folder). */
const SHOT = "/tmp/shots/tool-images.png";

const drawChart = defineTool({
  name: "draw_chart",
  description: "Draws a bar chart of the given title.",
  inputSchema: z.object({ title: z.string() }),
  execute: ({ title }) => ({ content: [{ type: "text", text: `chart: ${title}` }, { type: "image", data: CHART_PNG, mimeType: "image/png" }] }),
});

function lastUserText(req: { messages: { role: string; content?: unknown }[] }): string {
  const m = req.messages.findLast((x) => x.role === "user");
  return typeof m?.content === "string" ? m.content : JSON.stringify(m?.content ?? "");
}

/**
 * Pixels of the chart (x, y) and their colour: the foot of each bar and the x axis, in the last
 * rows of the image, which a truncated or half-decoded PNG does not have (it was seen: such an
 * image still reports complete with its full natural size, and draws its missing rows blank).
 */
const PROBES = [
  { x: 40, y: 124, rgb: [37, 99, 235] },
  { x: 90, y: 124, rgb: [22, 163, 74] },
  { x: 140, y: 124, rgb: [234, 88, 12] },
  { x: 190, y: 124, rgb: [147, 51, 234] },
  { x: 100, y: 125, rgb: [51, 65, 85] },
];

/** What the page function below uses of the DOM (the test's own types have no DOM library). */
type Img = { src: string; complete: boolean; naturalWidth: number; naturalHeight: number };
type Canvas = { width: number; height: number; getContext(kind: "2d"): { drawImage(i: Img, x: number, y: number): void; getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null };

/** The card's images as the browser decoded them: source, natural size, and the probed pixels' colours. */
function drawn(page: Page) {
  return page.locator('[data-testid="tool-card"][data-tool="draw_chart"] [data-testid="tool-image"]').evaluateAll(
    (imgs, probes) =>
      imgs.map((el) => {
        const img = el as unknown as Img;
        const canvas = (globalThis as unknown as { document: { createElement(tag: "canvas"): Canvas } }).document.createElement("canvas");
        canvas.width = img.naturalWidth;
        canvas.height = img.naturalHeight;
        const ctx = canvas.getContext("2d")!;
        if (img.complete && img.naturalWidth > 0) ctx.drawImage(img, 0, 0);
        const rgb = probes.map(({ x, y }) => [...ctx.getImageData(x, y, 1, 1).data.slice(0, 3)]);
        return { src: img.src, width: img.naturalWidth, height: img.naturalHeight, rgb };
      }),
    PROBES,
  );
}

describeBrowser("a tool's images in the browser", () => {
  let mock: LLMock;
  let server: AppServer;
  let browser: Browser;

  beforeAll(async () => {
    mock = new LLMock({ port: 0, host: "127.0.0.1", latency: 0, logLevel: "silent" });
    mock.addFixtures([
      // The turn after the tool: its result is in the request (an image result is followed by a
      // user message carrying the image, so the result is not always the last message).
      { match: { predicate: (req) => req.messages.some((m) => m.role === "tool") }, response: { content: REPLY } },
      { match: { predicate: (req) => lastUserText(req).includes("chart") }, response: { toolCalls: [{ name: "draw_chart", arguments: '{"title":"sales"}' }] } },
    ]);
    const llm = `${(await mock.start()).replace(/\/$/, "")}/v1`;
    const model = new OpenAIModel({ client: createOpenAIClient({ baseURL: llm, apiKey: "test", maxRetries: 0 }), model: "gpt-4o-mini" });
    server = await startServer({ agents: [defineAgent({ id: "default", instructions: "You draw charts.", tools: [drawChart], model })] });
    browser = await launchBrowser();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await mock?.stop();
  });

  it("the chart a tool returned is drawn in its card, live and after a reload", { timeout: 60_000 }, async () => {
    const page = await browser.newPage();
    const threadId = await openApp(page, server.url);
    await send(page, "Draw the sales chart");
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain(REPLY);
    const expected = [{ src: `data:image/png;base64,${CHART_PNG}`, ...CHART_SIZE, rgb: PROBES.map((p) => p.rgb) }];
    await expect.poll(() => drawn(page), { timeout: 20_000 }).toEqual(expected);
    const card = page.locator('[data-testid="tool-card"][data-tool="draw_chart"]');
    await expect.poll(() => card.getAttribute("data-status")).toBe("Complete");
    await card.scrollIntoViewIfNeeded();
    await screenshot(page, "45a-tool-image");
    mkdirSync(path.dirname(SHOT), { recursive: true });
    copyFileSync(path.join(SCREENSHOTS, "45a-tool-image.png"), SHOT);

    await page.reload();
    await page.getByTestId("copilot-chat-textarea").waitFor();
    expect(decodeURIComponent(new URL(page.url()).pathname.split("/t/")[1]!)).toBe(threadId);
    await expect.poll(() => drawn(page), { timeout: 20_000 }).toEqual(expected);
    await screenshot(page, "45b-tool-image-after-reload");
    await page.close();
  });
});
