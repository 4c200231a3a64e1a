/**
 * The manual's own FastAPI agent (docs/remote-agents.md, examples/durable-remote/app.py: the same
 * text, examples.test.ts) passes the conformance kit the manual ships: run as printed, on a free
 * port (AGENT_PORT), checked by checkAgUiServer. It answered a body that is not JSON with a 500.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkAgUiServer } from "../../conformance/index.ts";
import { pythonWithFastApi, startUvicornApp } from "../support/python.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const { python, missing } = pythonWithFastApi();
if (missing) console.warn(`[kit-docs-fastapi] SKIPPED: ${missing}`);

describe.skipIf(!python)("the manual's FastAPI agent against the conformance kit", () => {
  let url: string;
  let stop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ url, stop } = await startUvicornApp(path.join(ROOT, "examples/durable-remote/app.py"), ROOT));
  }, 60_000);
  afterAll(() => stop?.());

  it("passes every rule it can be judged on; bad input gets a 400 with no stream", async () => {
    const report = await checkAgUiServer(url);
    expect(report.failed).toEqual([]);
    expect(report.passed.map((r) => r.name)).toEqual(expect.arrayContaining(["sse-response", "event-schema", "lifecycle", "multi-turn", "state", "bad-input"]));
  });
});
