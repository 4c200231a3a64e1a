/**
 * Every ts/js block of the manual (README.md and docs/*.md) says how it is checked
 * (readme-blocks.ts), so that none can drift from the package unseen: package.test.ts runs or
 * type-checks each one as printed.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CODE_LANGS, curlRequest, MANUAL_COPIES, manualBlocks, manualPages, readmeBlocks, shellCommands, theBlock } from "./readme-blocks.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const { blocks, problems } = manualBlocks(ROOT);
/** Every page, the copies included: each must mark its blocks as the manual does. */
const everyPage = manualBlocks(ROOT, manualPages(ROOT));
const REMOTE_DOC = "docs/remote-agents.md";
const remoteDoc = readmeBlocks(readFileSync(path.join(ROOT, REMOTE_DOC), "utf8"), REMOTE_DOC);
/**
 * The blocks that cannot be checked as printed, by page: a fragment of the reader's own Express
 * app, and a test importing the reader's app. Another skip must be added here on purpose.
 */
const SKIPPED = ["docs/conformance.md", "docs/webhooks.md"];

/** The lines of these blocks, checked to be on one page: the order a reader follows them. */
function onePageInOrder(kinds: readonly Parameters<typeof theBlock>[1][]): string {
  const found = kinds.map((k) => theBlock(blocks, k));
  expect(new Set(found.map((b) => b.file)).size, found.map((b) => `${b.check?.kind}: ${b.file}`).join(", ")).toBe(1);
  const lines = found.map((b) => b.line);
  expect(lines).toEqual([...lines].sort((a, b) => a - b));
  return found[0]!.file;
}

describe("the manual's code blocks", () => {
  it("reads the README and the docs pages, less the copies (a guard on this test itself)", () => {
    expect(manualPages(ROOT)).toEqual(expect.arrayContaining(["README.md", "docs/getting-started.md", "docs/durable-threads.md", REMOTE_DOC]));
    expect(blocks.some((b) => MANUAL_COPIES.has(b.file))).toBe(false);
    expect(new Set(blocks.map((b) => b.file)).size).toBeGreaterThan(5);
  });

  it("has no malformed, unknown or dangling check marker on any page", () => {
    expect(everyPage.problems).toEqual([]);
    expect(problems).toEqual([]);
  });

  it("marks every TypeScript and JavaScript block of every page with how it is checked", () => {
    const unmarked = everyPage.blocks.filter((b) => CODE_LANGS.has(b.lang) && b.check === undefined).map((b) => `${b.file}:${b.line} (${b.lang})`);
    expect(unmarked).toEqual([]);
  });

  it(`checks every TypeScript and JavaScript block but those of ${SKIPPED.join(" and ")}, each skip with its reason`, () => {
    const skipped = everyPage.blocks.filter((b) => CODE_LANGS.has(b.lang) && b.check?.kind === "skip");
    expect(skipped.map((b) => b.file)).toEqual(SKIPPED);
    for (const b of skipped) expect(b.check).toMatchObject({ reason: expect.stringMatching(/\S{3}/) });
  });

  it("has one install, app, ask and CopilotKit pair, on one page, in the order a reader follows them", () => {
    onePageInOrder(["install", "app", "ask", "install-typescript", "install-copilotkit", "copilotkit-app"]);
  });

  it("asks the app a question through the app's own route", () => {
    const { path: route, body } = curlRequest(theBlock(blocks, "ask").code);
    expect(route).toMatch(/^\/ai\/agents\/assistant\/run$/);
    expect(body).toMatchObject({ messages: [{ role: "user", content: expect.any(String) }] });
  });

  it("has both durable-agent recipes to run, on one page that links the CopilotKit install they need, with the remote's question after its recipe", () => {
    const page = onePageInOrder(["run-remote", "ask-remote", "run-runner"]);
    const install = theBlock(blocks, "install-copilotkit").file;
    expect(readFileSync(path.join(ROOT, page), "utf8")).toContain(`](${path.relative(path.dirname(page), install)}#`);
    expect(theBlock(blocks, "run-remote").lang).toBe("ts");
    expect(theBlock(blocks, "run-runner").lang).toBe("ts");
    const { path: route, body } = curlRequest(theBlock(blocks, "ask-remote").code);
    expect(route).toBe("/api/agents/research/run");
    expect(body).toMatchObject({ threadId: expect.any(String), messages: [{ role: "user", content: expect.any(String) }] });
  });

  it(`prints in ${REMOTE_DOC} the same recipes the manual runs, and marks the Python remote they run against`, () => {
    expect(remoteDoc.problems).toEqual([]);
    expect(theBlock(remoteDoc.blocks, "run-remote", REMOTE_DOC).code).toBe(theBlock(blocks, "run-remote").code);
    expect(theBlock(remoteDoc.blocks, "run-runner", REMOTE_DOC).code).toBe(theBlock(blocks, "run-runner").code);
    expect(theBlock(remoteDoc.blocks, "remote-python", REMOTE_DOC).lang).toBe("python");
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
    expect(parsed.blocks.every((b) => b.file === "README.md")).toBe(true);
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
