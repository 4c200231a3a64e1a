/**
 * The Node versions the server starts on (server/node-version.ts), against package.json's
 * engines, and the sentence a start on another gives.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { NODE_ENGINES, nodeVersionProblem } from "../../server/node-version.ts";

const pkg = JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../../package.json"), "utf8")) as { engines: { node: string } };

describe("the Node versions", () => {
  it("are package.json's engines", () => {
    expect(NODE_ENGINES).toBe(pkg.engines.node);
  });

  it.each(["20.19.0", "20.20.2", "22.12.0", "22.20.1", "24.1.0", "25.0.0"])("%s starts", (v) => {
    expect(nodeVersionProblem(v)).toBeUndefined();
  });

  it.each(["18.20.4", "20.18.3", "21.7.3", "22.11.0"])("%s is refused with one sentence naming it and what to do", (v) => {
    expect(nodeVersionProblem(v)).toBe(`Threadline needs Node ^20.19.0 || >=22.12.0 and this is Node ${v}: install Node 22 (or 20.19 or later), e.g. with nvm install 22, and start again.`);
  });
});
