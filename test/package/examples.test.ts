/**
 * examples/ holds the manual's programs as files to copy: each is the block the manual prints,
 * character for character, so that the one package.test.ts runs (in an npm init -y project
 * against the packed package) is the one a reader copies. One owner: the manual's text; a change
 * to either side fails here until the other follows.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { manualBlocks, readmeBlocks, theBlock } from "./readme-blocks.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const { blocks } = manualBlocks(ROOT);
const REMOTE_DOC = "docs/remote-agents.md";
const remote = readmeBlocks(readFileSync(path.join(ROOT, REMOTE_DOC), "utf8"), REMOTE_DOC).blocks;

const EXAMPLES = [
  { file: "examples/express-copilotkit/app.ts", block: () => theBlock(blocks, "copilotkit-app") },
  { file: "examples/durable-remote/remote.ts", block: () => theBlock(blocks, "run-remote") },
  { file: "examples/durable-remote/app.py", block: () => theBlock(remote, "remote-python", REMOTE_DOC) },
  { file: "examples/runtime-runner/runtime.ts", block: () => theBlock(blocks, "run-runner") },
];

describe("examples/", () => {
  it.each(EXAMPLES)("$file is the manual's block", ({ file, block }) => {
    expect(readFileSync(path.join(ROOT, file), "utf8").trimEnd()).toBe(block().code.trimEnd());
  });

  it("lists every example in its README", () => {
    const readme = readFileSync(path.join(ROOT, "examples/README.md"), "utf8");
    for (const { file } of EXAMPLES) expect(readme).toContain(path.dirname(file).replace(/^examples\//, ""));
  });
});
