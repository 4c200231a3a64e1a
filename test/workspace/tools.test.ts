/**
 * The workspace tools called directly (a ToolContext of the test's own): the caps at their bound
 * (read's lines and bytes, grep's output, the terminal stream), each stated in the result when hit;
 * write and edit idempotent when run again (the engine's retry after a crash); refusals as errors.
 */
import { chmodSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ArtifactWrite, ToolContext, ToolDefinition } from "../../server/agents/define.ts";
import { loadConfig } from "../../server/config.ts";
import { testToolContext } from "../support/tool-context.ts";
import { TERMINAL_CHUNK_MAX_BYTES, TERMINAL_STREAM_MAX_BYTES, TerminalStream } from "../../server/workspace/terminal.ts";
import {
  GREP_OUTPUT_MAX_BYTES,
  READ_DEFAULT_LINES,
  READ_MAX_BYTES,
  READ_MAX_LINE_CHARS,
  workspaceHostFromConfig,
  workspaceTools,
  type WorkspaceHost,
} from "../../server/workspace/tools.ts";

let dataDir: string;
let host: WorkspaceHost;
let tools: Map<string, ToolDefinition>;
let dir: string;
const threadId = "tools-test";
const artifacts: ArtifactWrite[] = [];
const terminal: string[] = [];

const ctx = (): ToolContext =>
  testToolContext({ threadId, terminal: async (data) => void terminal.push(data), artifact: async (a) => void artifacts.push(a) });

async function call(name: string, args: unknown): Promise<unknown> {
  const tool = tools.get(name)!;
  return tool.execute(tool.inputSchema.parse(args), ctx());
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "tools-"));
  chmodSync(dataDir, 0o711);
  host = workspaceHostFromConfig(loadConfig({ DATA_DIR: dataDir }));
  tools = new Map(workspaceTools({ host }).map((t) => [t.name, t]));
  const ws = await host.workspaces.forRun(threadId, "default", undefined);
  if (!ws.ok) throw new Error(ws.error);
  dir = readlinkSync(`/proc/self/fd/${ws.handle.fd}`);
  await ws.handle.close();
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("workspace tools", () => {
  it("read: the default line limit, the long-line cut and the byte cap, each stated", async () => {
    writeFileSync(join(dir, "many.txt"), `${Array.from({ length: READ_DEFAULT_LINES + 5 }, (_, i) => `l${i + 1}`).join("\n")}\n`);
    const many = (await call("read", { path: "many.txt" })) as string;
    expect(many).toContain(`\nl${READ_DEFAULT_LINES}\n`);
    expect(many).not.toContain(`l${READ_DEFAULT_LINES + 1}\n`);
    expect(many).toContain(`[lines 1-${READ_DEFAULT_LINES} of ${READ_DEFAULT_LINES + 5}; read on with offset=${READ_DEFAULT_LINES + 1}]`);
    expect(await call("read", { path: "many.txt", offset: READ_DEFAULT_LINES + 4 })).toBe(`l${READ_DEFAULT_LINES + 4}\nl${READ_DEFAULT_LINES + 5}\n\n[lines ${READ_DEFAULT_LINES + 4}-${READ_DEFAULT_LINES + 5} of ${READ_DEFAULT_LINES + 5}]`);

    writeFileSync(join(dir, "long.txt"), `${"x".repeat(READ_MAX_LINE_CHARS)}\n${"y".repeat(READ_MAX_LINE_CHARS + 1)}\n`);
    const long = (await call("read", { path: "long.txt" })) as string;
    expect(long.split("\n")[0]).toBe("x".repeat(READ_MAX_LINE_CHARS));
    expect(long).toContain(`${"y".repeat(READ_MAX_LINE_CHARS)}… [line cut at ${READ_MAX_LINE_CHARS} characters]`);

    const line = "z".repeat(1023);
    writeFileSync(join(dir, "big.txt"), `${line}\n`.repeat(READ_MAX_BYTES / 1024 + 10));
    const big = (await call("read", { path: "big.txt" })) as string;
    expect(big.split("\n").filter((l) => l === line)).toHaveLength(READ_MAX_BYTES / 1024);
    expect(big).toContain(`stopped at ${READ_MAX_BYTES} bytes (READ_MAX_BYTES)`);
  });

  it("write and edit: idempotent when run again, refusals as errors the model reads", async () => {
    artifacts.length = 0;
    expect(await call("write", { path: "a/b.ts", content: "let x = 1;\n" })).toMatchObject({ action: "created" });
    expect(await call("write", { path: "a/b.ts", content: "let x = 1;\n" })).toMatchObject({ action: "updated", note: expect.stringMatching(/already had this content/) });
    const edit = { path: "a/b.ts", old_string: "x = 1", new_string: "x = 2" };
    expect(await call("edit", edit)).toMatchObject({ replacements: 1, diff: expect.stringContaining("-let x = 1;\n+let x = 2;") });
    expect(await call("edit", edit)).toMatchObject({ replacements: 0, note: expect.stringMatching(/already applied/) });
    expect(readFileSync(join(dir, "a/b.ts"), "utf8")).toBe("let x = 2;\n");
    expect(artifacts.map((a) => a.action)).toEqual(["created", "updated", "edited", "edited"]);
    writeFileSync(join(dir, "twice.txt"), "a a\n");
    await expect(call("edit", { path: "twice.txt", old_string: "a", new_string: "b" })).rejects.toThrow(/occurs 2 times/);
    expect(await call("edit", { path: "twice.txt", old_string: "a", new_string: "b", replace_all: true })).toMatchObject({ replacements: 2 });
    await expect(call("edit", { path: "twice.txt", old_string: "zzz", new_string: "q" })).rejects.toThrow(/was not found/);
    await expect(call("write", { path: "../escape.txt", content: "x" })).rejects.toThrow(/refused/);
    await expect(call("read", { path: "/etc/passwd" })).rejects.toThrow(/absolute/);
  });

  it("grep: output cut at GREP_OUTPUT_MAX_BYTES and said so; no match; find and ls", async () => {
    const status = await host.sandbox.probe(dir);
    if (!status.ok) return;
    writeFileSync(join(dir, "hits.txt"), `${"needle ".repeat(60)}\n`.repeat(200));
    const out = (await call("grep", { pattern: "needle", glob: "hits.txt" })) as string;
    expect(out).toMatch(new RegExp(`output cut at ${GREP_OUTPUT_MAX_BYTES} bytes`));
    expect(Buffer.byteLength(out)).toBeLessThan(GREP_OUTPUT_MAX_BYTES + 200);
    expect(out.startsWith("hits.txt:1:needle")).toBe(true);
    expect(await call("grep", { pattern: "absent-text", type: "ts" })).toBe("No matches.");
    expect(await call("grep", { pattern: "x = 2", type: "ts" })).toBe("a/b.ts:1:let x = 2;");
    expect(await call("find", { pattern: "**/*.ts" })).toBe("a/b.ts");
    expect(await call("ls", { path: "a" })).toBe("b.ts");
  });

  it("the terminal stream: events at most TERMINAL_CHUNK_MAX_BYTES, at most TERMINAL_STREAM_MAX_BYTES per call, then a notice", async () => {
    const sent: string[] = [];
    const t = new TerminalStream(async (data) => void sent.push(data));
    t.push("stdout", "é".repeat(TERMINAL_CHUNK_MAX_BYTES)); // 2 bytes each: two full events
    await t.end();
    expect(sent.map((s) => Buffer.byteLength(s))).toEqual([TERMINAL_CHUNK_MAX_BYTES, TERMINAL_CHUNK_MAX_BYTES]);
    const capped: string[] = [];
    const c = new TerminalStream(async (data) => void capped.push(data));
    c.push("stdout", "x".repeat(TERMINAL_STREAM_MAX_BYTES));
    await c.end();
    // At the bound: all of it, no notice.
    expect(capped.join("")).toBe("x".repeat(TERMINAL_STREAM_MAX_BYTES));
    c.push("stdout", "more");
    await c.end();
    expect(capped.at(-1)).toMatch(/terminal stream stopped at/);
    const over = new TerminalStream(async (data) => void capped.push(data));
    capped.length = 0;
    over.push("stdout", "x".repeat(TERMINAL_STREAM_MAX_BYTES + 1));
    await over.end();
    expect(capped.at(-1)).toMatch(/terminal stream stopped at/);
    expect(capped.slice(0, -1).join("").length).toBe(TERMINAL_STREAM_MAX_BYTES);
  });
});
