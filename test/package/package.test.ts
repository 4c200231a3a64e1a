/**
 * The package as a user gets it: `npm pack` of this repository (or the tarball in
 * PACKAGE_TARBALL), installed with npm into a scratch project next to express and zod, then
 * - the README's "Use it in your app" block, copied verbatim, type-checked against the installed
 *   declarations and run with tsx;
 * - the same mount in plain JavaScript, run with plain node, importing only the built files;
 * each driven by the real @ag-ui/client 1.0.0 and 0.0.59 (text, and the get_weather round trip)
 * and through CopilotKit's runtime it mounts, against an aimock upstream reached as
 * MODEL=openai:gpt-4o-mini. Nothing in the scratch project can see this repository's sources or
 * node_modules, so a file missing from `files`, a dependency left in devDependencies or a .ts
 * import left in the output fails here.
 *
 * Skipped only when npm cannot reach its registry (the install needs express, zod and the
 * package's own dependencies).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { type ChatCompletionRequest, LLMock } from "@copilotkit/aimock";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertAcceptedByBoth, CLIENT_VERSIONS, runBothClients, type BothOutcomes } from "../support/agui-clients.ts";
import { postSse } from "../support/sse-client.ts";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
const require = createRequire(import.meta.url);
const TSC = require.resolve("typescript/bin/tsc");
const TSX = path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
const INSTALL_TIMEOUT_MS = 600_000;

const repoPackage = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
  name: string;
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** The README's block under "Use it in your app", exactly as written there. */
function readmeAppBlock(readme: string): string {
  const section = readme.split(/^## Use it in your app\s*$/m)[1]?.split(/^## /m)[0];
  if (section === undefined) throw new Error('README.md has no "## Use it in your app" section');
  const block = /^```ts\n([\s\S]*?)^```$/m.exec(section)?.[1];
  if (block === undefined) throw new Error('README.md\'s "Use it in your app" section has no ```ts block');
  return block;
}

/** The same mount in plain JavaScript, with a plain JSON Schema instead of zod. */
const APP_MJS = `import express from "express";
import { createThreadline, defineAgent, defineTool } from "threadline";
import { encodeFrame } from "threadline/protocol";

if (typeof encodeFrame !== "function") throw new Error("threadline/protocol has no encodeFrame");

const weather = defineTool({
  name: "get_weather",
  description: "The weather in a city",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
  execute: async ({ city }) => ({ city, forecast: "sunny", tempC: 21 }),
});

const assistant = defineAgent({
  id: "assistant",
  description: "Answers questions about the weather",
  instructions: "You help with the weather. Use get_weather.",
  tools: [weather],
  model: process.env.MODEL,
});

const threadline = createThreadline({ database: process.env.DATABASE_URL, agents: [assistant] });
const app = express();
app.get("/", (_req, res) => { res.send("my app"); });
app.use("/ai", threadline.router());
app.use("/copilotkit", threadline.copilotkit());
await threadline.start();
app.listen(Number(process.env.PORT ?? 3000));
`;

const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    noEmit: true,
    // @electric-sql/pglite's own declarations need Emscripten's global types; a user's project
    // skips checking libraries too (tsc --init's default).
    skipLibCheck: true,
    types: ["node"],
  },
  include: ["app.ts"],
};

const WEATHER_ANSWER = "Sunny in Paris, 21 degrees.";
const HELLO_ANSWER = "Hello from the mock model.";

/** The upstream the apps' MODEL=openai:gpt-4o-mini reaches: the weather round trip, and plain text. */
async function startUpstream(): Promise<{ url: string; stop: () => Promise<void> }> {
  const mock = new LLMock({ port: 0, host: "127.0.0.1", latency: 0, logLevel: "silent" });
  const lastUser = (req: ChatCompletionRequest) => {
    const content = req.messages.filter((m) => m.role === "user").at(-1)?.content;
    return typeof content === "string" ? content : JSON.stringify(content ?? "");
  };
  mock.addFixtures([
    { match: { predicate: (req) => req.messages.at(-1)?.role === "tool" }, response: { content: WEATHER_ANSWER } },
    {
      match: { predicate: (req) => lastUser(req).toLowerCase().includes("weather") },
      response: { toolCalls: [{ name: "get_weather", arguments: JSON.stringify({ city: "Paris" }) }] },
    },
    { match: {}, response: { content: HELLO_ANSWER } },
  ]);
  const base = await mock.start();
  return { url: `${base.replace(/\/$/, "")}/v1`, stop: () => mock.stop() };
}

async function npmCanReachRegistry(): Promise<string | null> {
  try {
    await run(NPM, ["ping"], { timeout: 30_000 });
    return null;
  } catch (err) {
    return `npm cannot reach its registry (npm ping: ${(err as Error).message.split("\n")[0]})`;
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface App {
  url: string;
  output: () => string;
  stop: () => Promise<void>;
}

/** Starts an app and resolves once it answers GET /, or rejects with its output if it exits first. */
async function startApp(command: string[], cwd: string, env: Record<string, string>): Promise<App> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, command, { cwd, env: { ...process.env, ...env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  // The app prints nothing when it listens (it is the README's code): ask until it answers.
  for (;;) {
    if (exitCode !== undefined) throw new Error(`${command.join(" ")} exited with ${exitCode} before listening:\n${output}`);
    const res = await fetch(`${url}/`).catch(() => undefined);
    if (res) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    output: () => output,
    stop: async () => {
      if (exitCode === undefined) {
        child.kill("SIGTERM");
        await exited;
      }
    },
  };
}

const skipReason = process.env.PACKAGE_TARBALL ? null : await npmCanReachRegistry();
if (skipReason) console.warn(`test/package skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)(`the packed package, installed with npm${skipReason ? ` (skipped: ${skipReason})` : ""}`, () => {
  let work: string;
  let scratch: string;
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  const schemas: string[] = [];

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), "threadline-package-"));
    scratch = path.join(work, "app");
    mkdirSync(scratch);
    let tarball = process.env.PACKAGE_TARBALL;
    if (!tarball) {
      // prepack runs `npm run build`, so the tarball holds a fresh dist/.
      const { stdout } = await run(NPM, ["pack", "--json", "--pack-destination", work], { cwd: ROOT, timeout: INSTALL_TIMEOUT_MS, maxBuffer: 64 << 20 });
      // The build's own output may come first on stdout; npm's JSON report starts at a line "[".
      const [packed] = JSON.parse(stdout.slice(stdout.search(/^\[$/m))) as { filename: string }[];
      tarball = path.join(work, packed!.filename);
    }
    writeFileSync(
      path.join(scratch, "package.json"),
      JSON.stringify({
        name: "threadline-package-test-app",
        private: true,
        type: "module",
        dependencies: {
          threadline: `file:${path.resolve(tarball)}`,
          express: repoPackage.dependencies.express,
          zod: repoPackage.dependencies.zod,
          "@types/node": repoPackage.devDependencies["@types/node"],
        },
      }),
    );
    await run(NPM, ["install", "--prefer-offline", "--no-audit", "--no-fund"], { cwd: scratch, timeout: INSTALL_TIMEOUT_MS, maxBuffer: 64 << 20 });
    writeFileSync(path.join(scratch, "app.ts"), readmeAppBlock(readFileSync(path.join(ROOT, "README.md"), "utf8")));
    writeFileSync(path.join(scratch, "app.mjs"), APP_MJS);
    writeFileSync(path.join(scratch, "tsconfig.json"), JSON.stringify(TSCONFIG, null, 2));
    upstream = await startUpstream();
  }, INSTALL_TIMEOUT_MS + 300_000);

  afterAll(async () => {
    await upstream?.stop();
    if (process.env.DATABASE_URL && schemas.length > 0) {
      const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await client.connect();
      for (const schema of schemas) await client.query(`drop schema if exists "${schema}" cascade`);
      await client.end();
    }
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("ships built JavaScript and declarations only: no sources, no .ts imports left in the output", () => {
    const installed = path.join(scratch, "node_modules", "threadline");
    const manifest = JSON.parse(readFileSync(path.join(installed, "package.json"), "utf8")) as { exports: Record<string, unknown> };
    expect(Object.keys(manifest.exports)).toEqual([".", "./protocol", "./package.json"]);
    const files = readdirSync(installed, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => path.relative(installed, path.join(e.parentPath, e.name)));
    expect(files.filter((f) => /\.ts$/.test(f) && !f.endsWith(".d.ts"))).toEqual([]);
    expect(files).toContain("dist/server/index.js");
    expect(files).toContain("dist/protocol/index.d.ts");
    expect(files).toContain("dist/client/index.html");
    const index = readFileSync(path.join(installed, "dist", "server", "index.js"), "utf8");
    expect(index).not.toMatch(/from "\.{1,2}\/[^"]*\.ts"/);
  });

  it("imports `threadline` and `threadline/protocol` from plain node", async () => {
    const probe = `const m = await import("threadline"); const p = await import("threadline/protocol");
      console.log(JSON.stringify({ server: Object.keys(m), protocol: Object.keys(p) }));`;
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", probe], { cwd: scratch });
    const { server, protocol } = JSON.parse(stdout) as { server: string[]; protocol: string[] };
    expect(server).toEqual(expect.arrayContaining(["createThreadline", "defineAgent", "defineTool"]));
    expect(protocol).toEqual(expect.arrayContaining(["encodeFrame", "project", "reconstruct", "ThreadStatusSchema"]));
  });

  it("type-checks the README's app against the installed declarations", async () => {
    const result = await run(process.execPath, [TSC, "-p", scratch], { cwd: scratch }).catch((err: { stdout: string; stderr: string }) => err);
    expect(`${result.stdout}${result.stderr}`).toBe("");
  }, 120_000);

  describe.each([
    { name: "the README's TypeScript app, run with tsx", command: () => [TSX, path.join(scratch, "app.ts")] },
    { name: "the plain JavaScript app, run with node", command: () => [path.join(scratch, "app.mjs")] },
  ])("$name", ({ command }) => {
    let app: App;

    beforeAll(async () => {
      const schema = `pkg_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
      const database: Record<string, string> = process.env.DATABASE_URL
        ? { DATABASE_URL: process.env.DATABASE_URL, DATABASE_SCHEMA: schema }
        : { DATA_DIR: mkdtempSync(path.join(work, "data-")) };
      if (process.env.DATABASE_URL) schemas.push(schema);
      app = await startApp(command(), scratch, {
        ...database,
        MODEL: "openai:gpt-4o-mini",
        OPENAI_BASE_URL: upstream.url,
        OPENAI_API_KEY: "sk-test",
        LOG_LEVEL: "warn",
      });
    }, 120_000);

    afterAll(() => app?.stop());

    it("keeps the app's own route", async () => {
      const res = await fetch(`${app.url}/`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe("my app");
    });

    const agentUrl = () => `${app.url}/ai/agents/assistant/run`;
    const ask = (text: string, tag: string) => (v: string) => ({
      threadId: `pkg-${tag}-${v}-${randomUUID()}`,
      messages: [{ id: `u-${randomUUID()}`, role: "user" as const, content: text }],
    });
    const lastAssistantText = (outcomes: BothOutcomes, v: (typeof CLIENT_VERSIONS)[number]) =>
      outcomes[v].messages.filter((m) => m.role === "assistant").at(-1)?.content;

    it("answers text to both AG-UI clients under /ai", async () => {
      const outcomes = await runBothClients({ url: agentUrl(), input: ask("Hello there", "text") });
      assertAcceptedByBoth(outcomes);
      for (const v of CLIENT_VERSIONS) expect(lastAssistantText(outcomes, v), `@ag-ui/client ${v}\n${app.output()}`).toBe(HELLO_ANSWER);
    }, 60_000);

    it("runs the get_weather tool and answers with its result, for both AG-UI clients", async () => {
      const outcomes = await runBothClients({ url: agentUrl(), input: ask("What is the weather in Paris?", "tool") });
      assertAcceptedByBoth(outcomes);
      for (const v of CLIENT_VERSIONS) {
        const events = outcomes[v].events;
        expect(events.find((e) => e.type === "TOOL_CALL_START"), `@ag-ui/client ${v}`).toMatchObject({ toolCallName: "get_weather" });
        const result = events.find((e) => e.type === "TOOL_CALL_RESULT") as { content?: string } | undefined;
        expect(JSON.parse(result?.content ?? "null"), `@ag-ui/client ${v}`).toEqual({ city: "Paris", forecast: "sunny", tempC: 21 });
        expect(lastAssistantText(outcomes, v), `@ag-ui/client ${v}`).toBe(WEATHER_ANSWER);
      }
    }, 60_000);

    it("serves CopilotKit's runtime under /copilotkit, running the agent through Threadline", async () => {
      const info = await fetch(`${app.url}/copilotkit/info`);
      expect(info.status).toBe(200);
      expect(Object.keys(((await info.json()) as { agents: object }).agents)).toContain("assistant");
      const threadId = `pkg-ck-${randomUUID()}`;
      const stream = await postSse(`${app.url}/copilotkit/agent/assistant/run`, {
        threadId, runId: `r-${randomUUID()}`, state: {}, tools: [], context: [], forwardedProps: {},
        messages: [{ id: `u-${randomUUID()}`, role: "user", content: "What is the weather in Paris?" }],
      });
      const frames = await stream.done;
      expect(stream.status).toBe(200);
      expect(frames[0]?.event.type).toBe("RUN_STARTED");
      expect(frames.find((f) => f.event.type === "TOOL_CALL_RESULT")?.event.content).toContain("sunny");
      expect(frames.at(-1)?.event.type).toBe("RUN_FINISHED");
      // The run is Threadline's: the thread is readable through the router's thread routes.
      const thread = await fetch(`${app.url}/ai/threads/${threadId}`);
      expect(thread.status).toBe(200);
    }, 60_000);
  });
});
