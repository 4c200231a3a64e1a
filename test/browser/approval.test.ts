/** Human in the loop: confirm_action asks in the chat; approve, deny, and approve after a reload. */
import { expect, it } from "vitest";
import { assistantMessages, describeBrowser, openApp, screenshot, send, waitForStatus, useApp } from "./harness.ts";

describeBrowser("approval (human in the loop) in the browser", () => {
  const app = useApp();

  it("approve: the agent goes ahead", async () => {
    const page = await app.browser.newPage();
    await openApp(page, app.server.url);
    await send(page, "Delete the old drafts");
    const card = page.locator('[data-testid="approval-card"][data-state="asking"]');
    await card.waitFor({ timeout: 20_000 });
    await waitForStatus(page, "WAITING");
    expect(await card.textContent()).toContain("Delete the old drafts");
    await screenshot(page, "05a-approval-asking");
    await card.getByTestId("approve-button").click();
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("Approved, so I went ahead");
    await expect.poll(() => page.getByTestId("approval-card").getAttribute("data-state")).toBe("approved");
    await waitForStatus(page, "WAITING");
    await screenshot(page, "05b-approval-approved");
    await page.close();
  });

  it("deny: the agent does not do it", async () => {
    const page = await app.browser.newPage();
    await openApp(page, app.server.url);
    await send(page, "Delete the old drafts");
    const card = page.locator('[data-testid="approval-card"][data-state="asking"]');
    await card.waitFor({ timeout: 20_000 });
    await card.getByTestId("deny-button").click();
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("Cancelled: I did not do");
    await expect.poll(() => page.getByTestId("approval-card").getAttribute("data-state")).toBe("denied");
    await screenshot(page, "05c-approval-denied");
    await page.close();
  });

  it("an unanswered approval is asked again after a reload, and the answer still works", async () => {
    const page = await app.browser.newPage();
    await openApp(page, app.server.url);
    await send(page, "Please approve the deploy");
    await page.locator('[data-testid="approval-card"][data-state="asking"]').waitFor({ timeout: 20_000 });
    await waitForStatus(page, "WAITING");
    // The answer is given once the reloaded page's connect has ended: until then CopilotKit counts
    // the agent as running and drops a run started meanwhile (on a loaded machine the card can
    // render from the snapshot before the connect's last frame is handled).
    const connected = page.waitForResponse((r) => r.url().includes("/connect"), { timeout: 20_000 });
    await page.reload();
    const card = page.locator('[data-testid="approval-card"][data-state="asking"]');
    await card.waitFor({ timeout: 20_000 });
    await (await connected).finished();
    await waitForStatus(page, "WAITING");
    await screenshot(page, "05d-approval-after-reload");
    await card.getByTestId("approve-button").click();
    await expect.poll(() => assistantMessages(page).last().textContent(), { timeout: 20_000 }).toContain("Approved, so I went ahead");
    await page.close();
  });
});
