/**
 * GET /api/openapi.json (server/http/openapi.ts) against the router it describes: every route the
 * router has (read from Express's own route table, sub-routers included) is described, and
 * nothing is described that is not a route; the document is OpenAPI 3.1 whose request schemas
 * are the routes' zod schemas, so a query the route refuses is one the document forbids too.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import type { Router } from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS } from "../../server/http/openapi.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** `METHOD /path` of every route of a router and of the routers it uses. */
function routesOf(router: { stack: Layer[] }): string[] {
  const out: string[] = [];
  for (const layer of router.stack) {
    if (layer.route) for (const m of Object.keys(layer.route.methods)) out.push(`${m.toUpperCase()} ${layer.route.path}`);
    else if (layer.handle?.stack) out.push(...routesOf(layer.handle as { stack: Layer[] }));
  }
  return out;
}

type Doc = { openapi: string; servers: { url: string }[]; paths: Record<string, Record<string, { parameters?: { name: string; in: string; required: boolean; schema: object }[]; requestBody?: { content: Record<string, { schema: object }> } }>> };

describe("the OpenAPI description", () => {
  let server: TestServer;
  let doc: Doc;
  beforeAll(async () => {
    server = await startTestServer({ backend: "pglite" });
    const res = await fetch(`${server.url}/api/openapi.json`);
    expect(res.status).toBe(200);
    doc = (await res.json()) as Doc;
  }, 120_000);
  afterAll(() => server?.close());

  it("is OpenAPI 3.1 for the router where it is mounted", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers).toEqual([{ url: "/api" }]);
  });

  it("describes every route of the router, and only those", () => {
    // The standalone server mounts every optional part (schedules, memory, workspaces).
    const routes = routesOf(server.threadline.router() as unknown as Router & { stack: Layer[] }).filter((r) => !r.endsWith(" *"));
    const described = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p.replace(/\{(\w+)\}/g, ":$1")}`));
    expect([...new Set(routes)].sort()).toEqual(described.sort());
    expect(described).toHaveLength(OPERATIONS.length);
  });

  it("gives each query and body the schema its route validates with", () => {
    const ajv = new Ajv2020({ strict: false });
    const list = doc.paths["/threads"]!.get!.parameters!;
    const limit = list.find((p) => p.name === "limit");
    expect(limit?.in).toBe("query");
    // What the route refuses, the schema refuses: a limit past its maximum.
    const limitOk = ajv.compile(limit!.schema);
    expect(limitOk(10)).toBe(true);
    expect(limitOk(100_000)).toBe(false);
    const run = ajv.compile(doc.paths["/agents/{agentId}/run"]!.post!.requestBody!.content["application/json"]!.schema);
    expect(run({ threadId: "t", runId: "r", messages: [], tools: [], context: [], state: {}, forwardedProps: {} })).toBe(true);
    expect(run({ runId: "r" })).toBe(false);
    const patch = ajv.compile(doc.paths["/threads/{threadId}"]!.patch!.requestBody!.content["application/json"]!.schema);
    expect(patch({ title: "x".repeat(201) })).toBe(false);
  });
});
