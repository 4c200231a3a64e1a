/**
 * A server whose agents have no workspace tools does not make the workspace root or probe the
 * command sandbox at start (an app without coding tools made `data/workspaces` and logged a
 * notice about shared storage it does not use); one with workspaceTools() does both.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { loadConfig } from "../../server/config.ts";
import { createThreadline, defineAgent, defineTool, workspaceTools } from "../../server/index.ts";

const scratch = mkdtempSync(path.join(tmpdir(), "threadline-ws-unused-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const lookup = defineTool({
  name: "lookup_order",
  description: "Find an order.",
  inputSchema: z.object({ orderId: z.string() }),
  execute: async ({ orderId }) => ({ orderId, status: "shipped" }),
});

async function startWith(name: string, tools: Parameters<typeof defineAgent>[0]["tools"]) {
  const dataDir = path.join(scratch, name);
  const messages: string[] = [];
  const logger = pino({ level: "debug" }, { write: (s: string) => void messages.push((JSON.parse(s) as { msg: string }).msg) });
  const threadline = createThreadline({ dataDir, config: loadConfig({}), logger, agents: [defineAgent({ id: "support", instructions: "Help.", tools })] });
  await threadline.start();
  await threadline.close();
  return { workspaces: existsSync(path.join(dataDir, "workspaces")), messages };
}

describe("the workspace root at start", () => {
  it("is neither made nor probed when no agent has workspace tools", async () => {
    const { workspaces, messages } = await startWith("plain", [lookup]);
    expect(workspaces).toBe(false);
    expect(messages.filter((m) => /workspace|sandbox/.test(m))).toEqual([]);
  }, 120_000);

  it("is made, and the sandbox probed, when an agent has workspaceTools()", async () => {
    const { workspaces, messages } = await startWith("coding", [lookup, ...workspaceTools()]);
    expect(workspaces).toBe(true);
    expect(messages.some((m) => /^workspaces: root ready|^the workspace root/.test(m))).toBe(true);
    expect(messages.some((m) => /sandbox/.test(m))).toBe(true);
  }, 120_000);
});
