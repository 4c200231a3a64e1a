/**
 * Images in (issue 32): the composer's "+" opens the file picker, and an image pasted into the
 * input or dropped on the chat is attached too; each shows as a thumbnail with Remove. The limits
 * are the server's (GET /api/agents `attachments`, server/http/media-parts.ts): one image too
 * many, too big, or not an image is refused in the composer with what to do. Sent, the user
 * message shows its images, the demo model says how many it got, and after a reload the stored
 * thread draws them again. At a desktop's window and a phone's.
 */
import { crc32, deflateSync } from "node:zlib";
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { attachmentLimits } from "../../server/http/media-parts.ts";
import { DEFAULT_INPUT_LIMITS } from "../../server/http/limits.ts";
import { DEFAULT_EDGE } from "../../server/http/router.ts";
import { assistantMessages, consoleErrors, DESKTOP, type Device, describeBrowser, launchBrowser, openApp, PHONE, screenshot, useApp, waitForStatus } from "./harness.ts";

/** A w×h PNG of one colour: real PNG bytes, as the server checks them. */
function png(w: number, h: number, [r, g, b]: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: w }, () => [r, g, b]).flat())]);
  const raw = Buffer.concat(Array.from({ length: h }, () => row));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", ihdr), chunk("IDAT", deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]);
}

const LIMITS = attachmentLimits(DEFAULT_INPUT_LIMITS, DEFAULT_EDGE.maxBodyBytes);
const RED = png(48, 48, [220, 40, 40]);
const GREEN = png(48, 48, [40, 170, 80]);
const BLUE = png(48, 48, [40, 90, 220]);

/** Pastes (`kind` "paste") or drops ("drop") a PNG on the chat's input, as the browser delivers one. */
async function deliver(page: Page, kind: "paste" | "drop", name: string, bytes: Buffer): Promise<void> {
  await page.evaluate(
    `(async () => {
      const bin = atob(${JSON.stringify(bytes.toString("base64"))});
      const file = new File([Uint8Array.from(bin, (c) => c.charCodeAt(0))], ${JSON.stringify(name)}, { type: "image/png" });
      const dt = new DataTransfer();
      dt.items.add(file);
      const target = document.querySelector('[data-testid="copilot-chat-textarea"]');
      target.focus();
      if (${JSON.stringify(kind)} === "paste") target.dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }));
      else {
        target.dispatchEvent(new DragEvent("dragover", { dataTransfer: dt, bubbles: true, cancelable: true }));
        target.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
      }
    })()`,
  );
}

const thumbnails = (page: Page) => page.locator('[data-testid="copilot-attachment-queue"] img');
const problem = (page: Page) => page.getByTestId("attach-problem");

/** The "+" button, then the picker it opens (through CopilotKit's menu when it shows one). */
async function pick(page: Page, files: { name: string; mimeType: string; buffer: Buffer }[]): Promise<void> {
  const chooser = page.waitForEvent("filechooser", { timeout: 10_000 });
  await page.getByTestId("attach-button").click();
  const item = page.getByRole("menuitem", { name: "Attach images" });
  if (await item.isVisible().catch(() => false)) await item.click();
  await (await chooser).setFiles(files);
}

describeBrowser("images in the composer", () => {
  const app = useApp();

  for (const [label, device] of [["desktop", DESKTOP], ["phone", PHONE]] as [string, Device][]) {
    it(`picked, pasted and dropped; limits said in the composer; sent, answered and drawn again after a reload (${label})`, { timeout: 120_000 }, async () => {
      const browser = device === DESKTOP ? app.browser : await launchBrowser(device);
      try {
        const page = await browser.newPage();
        const res = await fetch(`${app.server.url}/api/agents`);
        expect(((await res.json()) as { attachments: unknown }).attachments).toEqual(LIMITS);
        await openApp(page, app.server.url);

        // Too big, and not an image: refused, with what to do; nothing attached.
        await pick(page, [{ name: "huge.png", mimeType: "image/png", buffer: Buffer.concat([RED, Buffer.alloc(LIMITS.maxImageBytes)]) }]);
        await expect.poll(() => problem(page).textContent()).toContain(`"huge.png" is larger than`);
        expect(await problem(page).textContent()).toContain("Make it smaller");
        await screenshot(page, `attach-1-too-big-${label}`);
        await pick(page, [{ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("hello") }]);
        await expect.poll(() => problem(page).textContent()).toContain(`"notes.txt" is not an image this agent takes: attach ${LIMITS.imageTypeNames}`);
        expect(await thumbnails(page).count()).toBe(0);
        await problem(page).getByRole("button", { name: "Dismiss" }).click();

        // Picker, paste, drop: three thumbnails.
        await pick(page, [{ name: "red.png", mimeType: "image/png", buffer: RED }]);
        await expect.poll(() => thumbnails(page).count()).toBe(1);
        await deliver(page, "paste", "green.png", GREEN);
        await expect.poll(() => thumbnails(page).count()).toBe(2);
        await deliver(page, "drop", "blue.png", BLUE);
        await expect.poll(() => thumbnails(page).count()).toBe(3);
        // One past the server's count: taken out again, and said.
        expect(LIMITS.maxImages).toBe(3);
        await deliver(page, "paste", "fourth.png", RED);
        await expect.poll(() => problem(page).textContent()).toContain(`at most ${LIMITS.maxImages} images: "fourth.png" was not attached`);
        await expect.poll(() => thumbnails(page).count()).toBe(3);
        await screenshot(page, `attach-2-three-thumbnails-${label}`);
        // Remove takes one out.
        await page.locator('[data-testid="copilot-attachment-queue"] [aria-label="Remove attachment"]').last().click();
        await expect.poll(() => thumbnails(page).count()).toBe(2);
        // Room again: the count's notice is over.
        await expect.poll(() => problem(page).count()).toBe(0);

        const input = page.getByTestId("copilot-chat-textarea");
        await input.fill("What do you see?");
        await input.press("Enter");
        await waitForStatus(page, "WAITING", 30_000);
        const mine = page.getByTestId("copilot-user-message").last();
        await expect.poll(() => mine.locator("img").count()).toBe(2);
        await expect.poll(() => assistantMessages(page).last().innerText(), { timeout: 20_000 }).toContain("I see 2 images in your message");
        expect(await thumbnails(page).count()).toBe(0);
        expect(await problem(page).count()).toBe(0);
        await screenshot(page, `attach-3-sent-${label}`);

        // The stored thread draws them again.
        await page.reload();
        await page.locator('[data-testid="chat-input"][data-enabled="true"]').waitFor();
        await expect.poll(() => page.getByTestId("copilot-user-message").last().locator("img").count(), { timeout: 20_000 }).toBe(2);
        const drawn = await page.getByTestId("copilot-user-message").last().locator("img").first().evaluate((img: { naturalWidth: number }) => img.naturalWidth);
        expect(drawn).toBe(48);
        await screenshot(page, `attach-4-after-reload-${label}`);
        expect(consoleErrors(page).filter((e) => !e.includes("favicon"))).toEqual([]);
        await page.close();
      } finally {
        if (browser !== app.browser) await browser.close();
      }
    });
  }
});
