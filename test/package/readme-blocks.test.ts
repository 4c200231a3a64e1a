/**
 * Every ts/js block of the README says how it is checked (readme-blocks.ts), so that none can
 * drift from the package unseen: package.test.ts runs or type-checks each one as printed.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CODE_LANGS, curlRequest, readmeBlocks, shellCommands, theBlock } from "./readme-blocks.ts";

const README = readFileSync(path.resolve(import.meta.dirname, "../../README.md"), "utf8");
const { blocks, problems } = readmeBlocks(README);
const REMOTE_DOC = "docs/remote-agents.md";
const remoteDoc = readmeBlocks(readFileSync(path.resolve(import.meta.dirname, "../..", REMOTE_DOC), "utf8"));

describe("README code blocks", () => {
  it("has no malformed, unknown or dangling check marker", () => {
    expect(problems).toEqual([]);
  });

  it("marks every TypeScript and JavaScript block with how it is checked", () => {
    const unmarked = blocks.filter((b) => CODE_LANGS.has(b.lang) && b.check === undefined).map((b) => `line ${b.line} (${b.lang})`);
    expect(unmarked).toEqual([]);
  });

  it("checks every TypeScript and JavaScript block: none is skipped", () => {
    const skipped = blocks.filter((b) => CODE_LANGS.has(b.lang) && b.check?.kind === "skip").map((b) => `line ${b.line}`);
    expect(skipped).toEqual([]);
  });

  it("has one install, app, ask and CopilotKit pair, in the order a reader follows them", () => {
    const lines = (["install", "app", "ask", "install-typescript", "install-copilotkit", "copilotkit-app"] as const).map((k) => theBlock(blocks, k).line);
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
  });

  it("asks the app a question through the app's own route", () => {
    const { path: route, body } = curlRequest(theBlock(blocks, "ask").code);
    expect(route).toMatch(/^\/ai\/agents\/assistant\/run$/);
    expect(body).toMatchObject({ messages: [{ role: "user", content: expect.any(String) }] });
  });

  it("has both durable-agent recipes to run, after the CopilotKit install they need, with the remote's question after its recipe", () => {
    const lines = (["install-copilotkit", "run-remote", "ask-remote", "run-runner"] as const).map((k) => theBlock(blocks, k).line);
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
    expect(theBlock(blocks, "run-remote").lang).toBe("ts");
    expect(theBlock(blocks, "run-runner").lang).toBe("ts");
    const { path: route, body } = curlRequest(theBlock(blocks, "ask-remote").code);
    expect(route).toBe("/api/agents/research/run");
    expect(body).toMatchObject({ threadId: expect.any(String), messages: [{ role: "user", content: expect.any(String) }] });
  });

  it(`prints in ${REMOTE_DOC} the same recipes the README runs, and marks the Python remote they run against`, () => {
    expect(remoteDoc.problems).toEqual([]);
    expect(theBlock(remoteDoc.blocks, "run-remote", REMOTE_DOC).code).toBe(theBlock(blocks, "run-remote").code);
    expect(theBlock(remoteDoc.blocks, "run-runner", REMOTE_DOC).code).toBe(theBlock(blocks, "run-runner").code);
    expect(theBlock(remoteDoc.blocks, "remote-python", REMOTE_DOC).lang).toBe("python");
    const unmarked = remoteDoc.blocks.filter((b) => CODE_LANGS.has(b.lang) && b.check === undefined).map((b) => `line ${b.line} (${b.lang})`);
    expect(unmarked).toEqual([]);
  });

  it("aims the remote recipe, by default, where the Python example serves by default", () => {
    const url = /process\.env\.RESEARCH_URL \?\? "([^"]+)"/.exec(theBlock(blocks, "run-remote").code)?.[1];
    const python = theBlock(remoteDoc.blocks, "remote-python", REMOTE_DOC).code;
    const port = /os\.environ\.get\("AGENT_PORT", "(\d+)"\)/.exec(python)?.[1];
    const route = /@app\.post\("([^"]+)"\)/.exec(python)?.[1];
    expect(url).toBeDefined();
    expect(url).toBe(`http://127.0.0.1:${port}${route}`);
  });

  it("installs from the tarball npm pack writes", () => {
    const [install] = shellCommands(theBlock(blocks, "install").code);
    expect(install).toMatch(/^npm install \.\/threadline-\d+\.\d+\.\d+\.tgz /);
  });

  it("parses markers, indented fences and continued shell lines", () => {
    const parsed = readmeBlocks(
      [
        "<!-- check: typecheck with a@1 b -->",
        "",
        "   ```ts",
        "   const x = 1;",
        "   ```",
        "<!-- check: bogus -->",
        "```sh",
        "a \\",
        "  b # c",
        "```",
        "<!-- check: remote-python -->",
        "```python",
        "x = 1",
        "```",
        "<!-- check: run-remote -->",
        "<!-- check: run-runner -->",
        "```ts",
        "```",
      ].join("\n"),
    );
    expect(parsed.blocks.map((b) => [b.lang, b.code, b.check])).toEqual([
      ["ts", "const x = 1;\n", { kind: "typecheck", with: ["a@1", "b"] }],
      ["sh", "a \\\n  b # c\n", undefined],
      ["python", "x = 1\n", { kind: "remote-python" }],
      ["ts", "\n", { kind: "run-runner" }],
    ]);
    expect(parsed.problems).toEqual(['line 6: unknown check "bogus"', "line 15: a check marker not followed by a code block"]);
    expect(shellCommands("a \\\n  b # c\n")).toEqual(["a b"]);
  });
});
