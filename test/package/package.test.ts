/**
 * The package as a reader of the manual gets it. A scratch project made by `npm init -y` and
 * nothing else (npm 11 writes `"type": "commonjs"`), the tarball `npm pack` writes put next to
 * it, and then the blocks of the README and docs/*.md as printed (readme-blocks.ts says how each
 * is marked; the install, app and CopilotKit ones are in docs/getting-started.md, the durable
 * recipes in docs/durable-threads.md):
 * - the install block is run, and the installed size and package count measured against the
 *   bounds below (CopilotKit's runtime is not part of it: an optional peer);
 * - the app block is saved as app.ts and run with tsx (CommonJS, as the project is), and saved as
 *   app.mjs and run with node; each is asked the ask block's question, which the offline demo
 *   model answers through the app's own get_weather, and is read by both AG-UI clients;
 * - the CopilotKit block must fail at start with the command to run, then, after the
 *   install-copilotkit block, serve CopilotKit's runtime;
 * - the remoteAgent recipe is run with tsx in front of docs/remote-agents.md's Python example as
 *   printed, and asked its curl block's question;
 * - after the install-copilotkit block, the own-runtime recipe is run with tsx, its OpenAI upstream
 *   aimock (through OPENAI_BASE_URL alone), and driven by CopilotKit's headless client;
 * - after the install-typescript block, every ts block is type-checked with the project's own
 *   TypeScript.
 * Nothing in the scratch project can see this repository's sources or node_modules (tsx, the
 * one tool taken from here, resolves from the app's file), so a file missing from `files`, a
 * dependency left in devDependencies or a .ts import left in the output fails here.
 *
 * Skipped only when npm cannot reach its registry.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { LLMock } from "@copilotkit/aimock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertAcceptedByBoth, CLIENT_VERSIONS, runBothClients } from "../support/agui-clients.ts";
import { ckSession, type Door } from "../support/copilotkit-clients.ts";
import { terminals, textOf } from "../support/frame-checks.ts";
import { startUvicornApp } from "../support/python.ts";
import { pythonUnavailable } from "../support/remote-agui.ts";
import { testSchema } from "../support/schemas.ts";
import { isType, postSse } from "../support/sse-client.ts";
import { curlRequest, manualBlocks, type ReadmeBlock, readmeBlocks, shellCommands, theBlock } from "./readme-blocks.ts";
import { unusedPort } from "../support/ports.ts";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
const TSX = path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
/** Bounds on npm's own work (registry round trips on a loaded machine), not on our code. */
const INSTALL_TIMEOUT_MS = 600_000;
/** Bound on an app's start (migrations on a fresh store) until it prints that it listens. */
const APP_START_TIMEOUT_MS = 120_000;

/**
 * Bounds on the getting-started app's install, as `du` counts it (allocated blocks) and as npm
 * counts packages (its hidden lockfile). pino-pretty, the logs on a terminal (pino's own
 * transport), brings 14 packages (about 1.8 MB: pino-pretty 0.9 MB, fast-copy, minimist, help-me
 * and their like). Before it, measured on Node 20 / npm 11: 72.2 MB and 129 packages since
 * ajv and ajv-formats check interrupt answers against their JSON Schema (3.2 MB, 6 packages:
 * ajv 2.5 MB with its four dependencies); before them 69.0 MB and 123 packages, of
 * which PGlite is 26.1 MB, zod 8.2 MB, this package 6.2 MB (the bundled web app once, as Brotli),
 * AG-UI's protobuf encoding 9.2 MB (its schema's own zod 3, 5.1 MB, @bufbuild/protobuf 2.9 MB and
 * @ag-ui/proto 1.2 MB), @opentelemetry/api 2.8 MB, @types/node 2.7 MB and prom-client's bintrees
 * 2.3 MB. Before: 109.2 MB, with the openai SDK (20 MB, now an optional peer: the demo model
 * answers in process), aimock (11 MB, the demo's old upstream, now the tests' only) and the web
 * app as JavaScript, Brotli and gzip (13 MB); before that 136.6 MB (the openai SDK 7's 35 MB, every
 * grammar of the code highlighter 12 MB, source maps of sources not shipped 2 MB, KaTeX's fonts in
 * woff and ttf 1 MB); with CopilotKit's runtime as a dependency, as it was once: 417 MB and 392
 * packages. The bounds leave a little room and catch anything of that kind coming back; a failure
 * names the largest packages.
 */
const INSTALL_MAX_MB = 78;
const INSTALL_MAX_PACKAGES = 146;

const { blocks } = manualBlocks(ROOT);
const REMOTE_DOC = "docs/remote-agents.md";
const remoteDocBlocks = readmeBlocks(readFileSync(path.join(ROOT, REMOTE_DOC), "utf8"), REMOTE_DOC).blocks;
const repoPackage = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { name: string; version: string };

/** Environment variables of this process that would change what the manual's app does. */
const APP_ENV_OVERRIDES = /^(OPENAI_|ANTHROPIC_|GOOGLE_|OPENROUTER_|OLLAMA_|MODEL$|DATABASE_|DATA_DIR$|PORT$|API_KEYS$|WORKSPACE_ROOT$|LOG_LEVEL$)/;
function appEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !APP_ENV_OVERRIDES.test(k)));
  return { ...env, LOG_LEVEL: "warn", ...extra };
}

async function npmCanReachRegistry(): Promise<string | null> {
  try {
    await run(NPM, ["ping"], { timeout: 30_000 });
    return null;
  } catch (err) {
    return `npm cannot reach its registry (npm ping: ${(err as Error).message.split("\n")[0]})`;
  }
}

/** Runs a sh block's commands, as printed, in `cwd`; returns what they printed. */
async function runShellBlock(block: ReadmeBlock, cwd: string): Promise<string> {
  let output = "";
  for (const command of shellCommands(block.code)) {
    const { stdout, stderr } = await run("sh", ["-c", command], { cwd, timeout: INSTALL_TIMEOUT_MS, maxBuffer: 64 << 20 });
    output += stdout + stderr;
  }
  return output;
}

/** Bytes allocated under `dir` and everything in it (what `du` reports). */
function allocatedBytes(dir: string): number {
  let bytes = lstatSync(dir).blocks * 512;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    bytes += entry.isDirectory() ? allocatedBytes(full) : lstatSync(full).blocks * 512;
  }
  return bytes;
}

interface InstalledSize {
  mb: number;
  packages: number;
  /** The largest packages, as "name MB" lines, largest first (a nested copy counted on its own). */
  largest: string[];
}

/** What `npm install` left in the project's node_modules: megabytes, packages, the largest ones. */
function installedSize(project: string): InstalledSize {
  const modules = path.join(project, "node_modules");
  // npm's hidden lockfile lists every installed package once, nested copies included.
  const lock = JSON.parse(readFileSync(path.join(modules, ".package-lock.json"), "utf8")) as { packages: Record<string, unknown> };
  const sizes = Object.keys(lock.packages).map((p) => {
    // A nested package's bytes are also in its parent's: subtract them so each byte counts once.
    const nested = Object.keys(lock.packages).filter((q) => q.startsWith(`${p}/node_modules/`) && !q.slice(p.length + 14).includes("/node_modules/"));
    const own = allocatedBytes(path.join(project, p)) - nested.reduce((n, q) => n + allocatedBytes(path.join(project, q)), 0);
    return { name: p.replace(/^node_modules\//, ""), mb: own / 1024 / 1024 };
  });
  const largest = sizes
    .sort((a, b) => b.mb - a.mb)
    .slice(0, 12)
    .map((s) => `${s.name} ${s.mb.toFixed(1)}`);
  return { mb: allocatedBytes(modules) / 1024 / 1024, packages: Object.keys(lock.packages).length, largest };
}

interface App {
  url: string;
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * Starts an app and resolves once it prints that it listens (the manual's apps do), or rejects
 * with its output if it exits first.
 */
async function startApp(command: string[], cwd: string, env: Record<string, string>): Promise<App> {
  const port = await unusedPort();
  const child: ChildProcess = spawn(process.execPath, command, { cwd, env: appEnv({ ...env, PORT: String(port) }), stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  await new Promise<void>((resolve, reject) => {
    const onData = (c: Buffer) => {
      output += c.toString();
      if (output.includes(`Listening on http://localhost:${port}`)) resolve();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    void exited.then((code) => reject(new Error(`${command.join(" ")} exited with ${code} before listening:\n${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    stop: async () => {
      if (exitCode === undefined) {
        child.kill("SIGTERM");
        await exited;
      }
    },
  };
}

/**
 * docs/remote-agents.md's Python example as printed, saved as app.py in a directory of its own and
 * run on a free port (its AGENT_PORT); resolves once uvicorn prints that it serves there.
 */
async function startPythonExample(dir: string): Promise<{ url: string; stop: () => Promise<void> }> {
  writeFileSync(path.join(dir, "app.py"), theBlock(remoteDocBlocks, "remote-python", REMOTE_DOC).code);
  return startUvicornApp("app.py", dir);
}

/** Runs an app that must not start; resolves with its exit code and output. */
async function failingApp(command: string[], cwd: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, command, { cwd, env: appEnv({ ...env, PORT: String(await unusedPort()) }), stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr.on("data", (c: Buffer) => (output += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { code, output };
}

const skipReason = process.env.PACKAGE_TARBALL ? null : await npmCanReachRegistry();
if (skipReason) console.warn(`test/package skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)(`the manual, as printed, in an npm init -y project${skipReason ? ` (skipped: ${skipReason})` : ""}`, () => {
  let work: string;
  let scratch: string;
  let installOutput: string;
  let installed: InstalledSize;

  /** A fresh database for one app run: its own Postgres schema, or its own PGlite directory. */
  const database = (): Record<string, string> => {
    if (!process.env.DATABASE_URL) return { DATA_DIR: mkdtempSync(path.join(work, "data-")) };
    // Dropped when the file ends, with every test schema (support/teardown.ts).
    return { DATABASE_URL: process.env.DATABASE_URL, DATABASE_SCHEMA: testSchema("pkg") };
  };

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), "threadline-package-"));
    scratch = path.join(work, "app");
    mkdirSync(scratch);
    await run(NPM, ["init", "-y"], { cwd: scratch });
    // The tarball under the name `npm pack` gives it, where the manual's install line looks.
    const tarballName = `${repoPackage.name}-${repoPackage.version}.tgz`;
    if (process.env.PACKAGE_TARBALL) copyFileSync(process.env.PACKAGE_TARBALL, path.join(scratch, tarballName));
    else await run(NPM, ["pack", "--pack-destination", scratch], { cwd: ROOT, timeout: INSTALL_TIMEOUT_MS, maxBuffer: 64 << 20 });
    installOutput = await runShellBlock(theBlock(blocks, "install"), scratch);
    installed = installedSize(scratch);
    console.info(`the getting-started app's install: ${installed.mb.toFixed(1)} MB in node_modules, ${installed.packages} packages; largest (MB): ${installed.largest.join(", ")}`);
    writeFileSync(path.join(scratch, "app.ts"), theBlock(blocks, "app").code);
    writeFileSync(path.join(scratch, "app.mjs"), theBlock(blocks, "app").code);
    writeFileSync(path.join(scratch, "copilotkit-app.ts"), theBlock(blocks, "copilotkit-app").code);
    // The names the manual tells a reader to save them under.
    writeFileSync(path.join(scratch, "remote.ts"), theBlock(blocks, "run-remote").code);
    writeFileSync(path.join(scratch, "runtime.ts"), theBlock(blocks, "run-runner").code);
  }, 2 * INSTALL_TIMEOUT_MS);

  // Removing the scratch project (half a gigabyte of small files once CopilotKit's runtime and
  // TypeScript are in) is file work of npm's order: the same bound.
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  }, INSTALL_TIMEOUT_MS);

  it("is a CommonJS project, as npm init -y makes it", () => {
    expect(JSON.parse(readFileSync(path.join(scratch, "package.json"), "utf8"))).not.toHaveProperty("type", "module");
  });

  it(`installs within ${INSTALL_MAX_MB} MB and ${INSTALL_MAX_PACKAGES} packages, without CopilotKit's runtime or install scripts`, () => {
    const largest = `largest packages (MB):\n${installed.largest.join("\n")}`;
    expect(installed.mb, largest).toBeLessThan(INSTALL_MAX_MB);
    expect(installed.packages, largest).toBeLessThan(INSTALL_MAX_PACKAGES);
    const modules = path.join(scratch, "node_modules");
    // Neither CopilotKit's runtime nor aimock (the tests' upstream), nor the openai SDK (an optional peer).
    expect(existsSync(path.join(modules, "@copilotkit"))).toBe(false);
    expect(existsSync(path.join(modules, "openai"))).toBe(false);
    expect(installOutput).not.toMatch(/install-scripts|allowScripts/);
    // engines agrees with every dependency's: on a Node the package supports (this one), npm has
    // no complaint about the package or anything it brings.
    expect(installOutput).not.toContain("EBADENGINE");
  });

  it("ships built JavaScript and declarations only: no sources, no .ts imports left in the output", () => {
    const pkg = path.join(scratch, "node_modules", "threadline");
    const manifest = JSON.parse(readFileSync(path.join(pkg, "package.json"), "utf8")) as { exports: Record<string, unknown> };
    expect(Object.keys(manifest.exports)).toEqual([".", "./protocol", "./conformance", "./package.json"]);
    const files = readdirSync(pkg, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => path.relative(pkg, path.join(e.parentPath, e.name)));
    expect(files.filter((f) => /\.ts$/.test(f) && !f.endsWith(".d.ts"))).toEqual([]);
    // Source maps would point at those sources: they are not built for the package.
    expect(files.filter((f) => f.endsWith(".map"))).toEqual([]);
    expect(files).toContain("dist/server/index.js");
    expect(files).toContain("dist/protocol/index.d.ts");
    expect(files).toContain("dist/conformance/cli.js");
    expect(files).toContain("dist/client/index.html");
    // The web app's code highlighter carries common languages only (client/src/markdown/shiki-common-languages.ts).
    expect(files.filter((f) => /^dist\/client\/assets\/typescript-[\w-]{8}\.js(\.br)?$/.test(f))).toHaveLength(1);
    expect(files.filter((f) => /^dist\/client\/assets\/(emacs-lisp|cobol|wolfram|dracula)-[\w-]{8}\.js/.test(f))).toEqual([]);
    // Each large asset once, as its Brotli copy (client/precompress.ts); index.html as it is.
    expect(files.filter((f) => f.startsWith("dist/client/assets/index-") && f.endsWith(".js"))).toEqual([]);
    expect(files.filter((f) => f.startsWith("dist/client/assets/index-") && f.endsWith(".js.br"))).toHaveLength(1);
    // KaTeX's fonts as woff2 only (client/katex-woff2-only.ts).
    expect(files.filter((f) => /^dist\/client\/assets\/KaTeX_.*\.(woff|ttf)$/.test(f))).toEqual([]);
    expect(files).toContain("LICENSE");
    const index = readFileSync(path.join(pkg, "dist", "server", "index.js"), "utf8");
    expect(index).not.toMatch(/from "\.{1,2}\/[^"]*\.ts"/);
  });

  it("declares its types with packages the install has: no optional peer's types are reachable from its entry points", () => {
    const pkg = path.join(scratch, "node_modules", "threadline");
    const missing = new Set<string>();
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, "utf8");
      for (const [, spec] of text.matchAll(/(?:from|import)\s+["']([^"']+)["']/g)) {
        if (spec!.startsWith(".")) visit(path.resolve(path.dirname(file), spec!.replace(/\.(ts|js)$/, ".d.ts")));
        else if (!spec!.startsWith("node:")) {
          const name = spec!.split("/").slice(0, spec!.startsWith("@") ? 2 : 1).join("/");
          if (!existsSync(path.join(scratch, "node_modules", name, "package.json"))) missing.add(`${name} (from ${path.relative(pkg, file)})`);
        }
      }
    };
    visit(path.join(pkg, "dist", "server", "index.d.ts"));
    visit(path.join(pkg, "dist", "protocol", "index.d.ts"));
    visit(path.join(pkg, "dist", "conformance", "index.d.ts"));
    expect(seen.size).toBeGreaterThan(10);
    expect([...missing]).toEqual([]);
  });

  it("exports the public API, the workspace toolkit and the coding agent included, to import and to require", async () => {
    const names = ["createThreadline", "defineAgent", "defineTool", "remoteAgent", "workspaceTools", "codingAgent", "CODING_SYSTEM_PROMPT", "approvalsAgent", "resolveModel"];
    const esm = `const m = await import("threadline"); const p = await import("threadline/protocol");
      console.log(JSON.stringify({ server: Object.keys(m), protocol: Object.keys(p) }));`;
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", esm], { cwd: scratch });
    const { server, protocol } = JSON.parse(stdout) as { server: string[]; protocol: string[] };
    expect(server).toEqual(expect.arrayContaining(names));
    expect(protocol).toEqual(expect.arrayContaining(["encodeFrame", "project", "reconstruct", "ThreadStatusSchema"]));
    const cjs = `console.log(JSON.stringify(Object.keys(require("threadline"))))`;
    const required = JSON.parse((await run(process.execPath, ["-e", cjs], { cwd: scratch })).stdout) as string[];
    expect(required).toEqual(expect.arrayContaining(names));
  });

  it("installs the conformance kit: threadline/conformance to import, threadline-conformance on the PATH of npx", async () => {
    const esm = `const k = await import("threadline/conformance"); console.log(JSON.stringify(Object.keys(k)));`;
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", esm], { cwd: scratch });
    expect(JSON.parse(stdout)).toEqual(expect.arrayContaining(["checkAgUiServer", "formatReport", "CONFORMANCE_RULES"]));
    const bin = path.join(scratch, "node_modules", ".bin", "threadline-conformance");
    const help = await run(bin, ["--help"], { cwd: scratch });
    expect(help.stdout).toMatch(/^Usage: threadline-conformance <url>/);
  });

  it("installs the threadline command: npx threadline help, and its conformance hands over to the kit", async () => {
    const bin = path.join(scratch, "node_modules", ".bin", "threadline");
    expect((await run(bin, ["help"], { cwd: scratch })).stdout).toMatch(/^Usage: threadline <command>/);
    expect((await run(bin, ["conformance", "--help"], { cwd: scratch })).stdout).toMatch(/^Usage: threadline-conformance <url>/);
  });

  describe.each([
    { name: "the manual's app as app.ts, run with tsx in the CommonJS project", command: () => [TSX, "app.ts"] },
    { name: "the manual's app as app.mjs, run with node", command: () => ["app.mjs"] },
  ])("$name", ({ command }) => {
    let app: App;

    beforeAll(async () => {
      app = await startApp(command(), scratch, database());
    }, APP_START_TIMEOUT_MS);

    afterAll(() => app?.stop());

    it("keeps the app's own route, and serves health and readiness", async () => {
      const res = await fetch(`${app.url}/`);
      expect(await res.text()).toBe("my app");
      expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
      expect(await (await fetch(`${app.url}/readyz`)).json()).toMatchObject({ ok: true });
    });

    it("answers the manual's question with the manual's tool, through the offline demo model", async () => {
      const { path: route, body } = curlRequest(theBlock(blocks, "ask").code);
      const stream = await postSse(`${app.url}${route}`, body);
      const frames = (await stream.done).map((f) => f.event);
      expect(stream.status, app.output()).toBe(200);
      expect(frames.find((e) => e.type === "TOOL_CALL_START")).toMatchObject({ toolCallName: "get_weather" });
      const result = frames.find((e) => e.type === "TOOL_CALL_RESULT") as { content?: string } | undefined;
      expect(JSON.parse(result?.content ?? "null")).toEqual({ city: "Paris", forecast: "sunny", tempC: 21 });
      const answer = frames.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("");
      expect(answer).toContain("Paris");
      expect(answer).toContain("sunny");
      expect(frames.at(-1)?.type, app.output()).toBe("RUN_FINISHED");
    });

    it("is read by both AG-UI clients", async () => {
      const { path: route, body } = curlRequest(theBlock(blocks, "ask").code);
      const { messages } = body as { messages: { content: string }[] };
      const outcomes = await runBothClients({
        url: `${app.url}${route}`,
        input: (v) => ({ threadId: `pkg-${v}-${randomUUID()}`, messages: [{ id: `u-${randomUUID()}`, role: "user" as const, content: messages[0]!.content }] }),
      });
      assertAcceptedByBoth(outcomes);
      for (const v of CLIENT_VERSIONS) {
        const text = outcomes[v].messages.filter((m) => m.role === "assistant").at(-1)?.content;
        expect(text, `@ag-ui/client ${v}`).toContain("Paris");
      }
    });

    it("passes the installed conformance command, whose real-client rules need @ag-ui/client (not installed here)", async () => {
      const { path: route } = curlRequest(theBlock(blocks, "ask").code);
      const bin = path.join(scratch, "node_modules", ".bin", "threadline-conformance");
      const agentPath = route.replace(/\/run$/, "");
      const { stdout } = await run(bin, [app.url, "--agent-path", agentPath, "--json"], { cwd: scratch, maxBuffer: 16 * 1024 * 1024 });
      const report = JSON.parse(stdout) as { failed: unknown[]; passed: { name: string }[]; unsupported: { name: string; detail: string }[] };
      expect(report.failed).toEqual([]);
      expect(report.passed.map((r) => r.name)).toEqual(expect.arrayContaining(["event-schema", "lifecycle", "ids", "multi-turn", "bad-input", "resume"]));
      expect(report.unsupported.find((r) => r.name === "client-1.0")?.detail).toMatch(/@ag-ui\/client 1\.x is not installed here/);
    });
  });

  const noPython = pythonUnavailable();
  describe.skipIf(noPython !== undefined)(`the manual's remoteAgent recipe as remote.ts, run with tsx in front of ${REMOTE_DOC}'s Python example${noPython ? ` (skipped: ${noPython})` : ""}`, () => {
    let remote: Awaited<ReturnType<typeof startPythonExample>>;
    let app: App;

    beforeAll(async () => {
      const pythonDir = path.join(work, "python-remote");
      mkdirSync(pythonDir);
      remote = await startPythonExample(pythonDir);
      // Its URL is the one setting moved off the printed default: 8000 may be taken on this machine.
      app = await startApp([TSX, "remote.ts"], scratch, { ...database(), RESEARCH_URL: remote.url });
    }, APP_START_TIMEOUT_MS);

    afterAll(async () => {
      await app?.stop();
      await remote?.stop();
    });

    it("answers the manual's question with the remote's answer, streamed through Threadline to RUN_FINISHED; a reload reads it from the log", async () => {
      const { path: route, body } = curlRequest(theBlock(blocks, "ask-remote").code);
      const { threadId, messages } = body as { threadId: string; messages: { content: string }[] };
      const question = messages[0]!.content;
      const answer = `You said: ${question}. This is turn 1.`; // what the Python example answers
      const stream = await postSse(`${app.url}${route}`, body);
      const frames = await stream.done;
      expect(stream.status, app.output()).toBe(200);
      expect(textOf(frames)).toBe(answer);
      expect(frames.findLast(isType("STATE_SNAPSHOT"))?.event.snapshot).toEqual({ turns: 1 }); // the remote's, after Threadline's first
      expect(terminals(frames).map((f) => f.event.type)).toEqual(["RUN_FINISHED"]);
      expect(frames.at(-1)?.event.type).toBe("RUN_FINISHED");
      // A reload, as the manual's prose prints it, and a connect without a cursor: from the log.
      const thread = await fetch(`${app.url}/api/threads/${threadId}`);
      expect(thread.status).toBe(200);
      expect(await thread.json()).toMatchObject({
        agentId: "research",
        status: "WAITING",
        messages: [
          { role: "user", content: question },
          { role: "assistant", content: answer },
        ],
        state: { turns: 1 },
      });
      const connect = await (await postSse(`${app.url}/api/agents/research/connect`, { threadId })).done;
      expect(connect.find(isType("MESSAGES_SNAPSHOT"))?.event.messages).toMatchObject([
        { role: "user", content: question },
        { role: "assistant", content: answer },
      ]);
      expect(terminals(connect).map((f) => f.event.type)).toEqual(["RUN_FINISHED"]);
    });
  });

  it("without the openai SDK (an optional peer), the app configured for OpenAI stops at start with the command to run", async () => {
    const { code, output } = await failingApp(["app.mjs"], scratch, { ...database(), MODEL: "openai:gpt-4o-mini", OPENAI_API_KEY: "sk-test" });
    expect(code).not.toBe(0);
    expect(output).toContain("needs openai, an optional peer dependency of threadline");
    expect(output).toContain("npm install openai@6");
  }, APP_START_TIMEOUT_MS);

  describe("CopilotKit's runtime, an optional peer dependency", () => {
    it("without it, the CopilotKit app stops at start with the command to run", async () => {
      const { code, output } = await failingApp([TSX, "copilotkit-app.ts"], scratch, database());
      expect(code).not.toBe(0);
      expect(output).toContain("copilotkit() needs @copilotkit/runtime");
      expect(output).toContain("npm install @copilotkit/runtime@1.75");
    }, APP_START_TIMEOUT_MS);

    it("after the manual's install, serves CopilotKit's runtime, running the agent through Threadline", async () => {
      await runShellBlock(theBlock(blocks, "install-copilotkit"), scratch);
      const app = await startApp([TSX, "copilotkit-app.ts"], scratch, database());
      try {
        const info = await fetch(`${app.url}/copilotkit/info`);
        expect(info.status, app.output()).toBe(200);
        expect(Object.keys(((await info.json()) as { agents: object }).agents)).toContain("assistant");
        const threadId = `pkg-ck-${randomUUID()}`;
        const stream = await postSse(`${app.url}/copilotkit/agent/assistant/run`, {
          threadId, runId: `r-${randomUUID()}`, state: {}, tools: [], context: [], forwardedProps: {},
          messages: [{ id: `u-${randomUUID()}`, role: "user", content: "Hello" }],
        });
        const frames = await stream.done;
        expect(stream.status).toBe(200);
        expect(frames[0]?.event.type).toBe("RUN_STARTED");
        expect(frames.some((f) => f.event.type === "TEXT_MESSAGE_CONTENT")).toBe(true);
        expect(frames.at(-1)?.event.type, app.output()).toBe("RUN_FINISHED");
        // The run is Threadline's: the thread is readable through the router's thread routes.
        expect((await fetch(`${app.url}/ai/threads/${threadId}`)).status).toBe(200);
      } finally {
        await app.stop();
      }
    }, INSTALL_TIMEOUT_MS + APP_START_TIMEOUT_MS);

    it("runs the manual's own-runtime recipe as runtime.ts: BuiltInAgent's answer streams through Threadline's runner into the log, per tenant", async () => {
      const ANSWER = "Each word of this answer was written to the thread's log as it streamed.";
      // BuiltInAgent's "openai/…" is @ai-sdk/openai's default model, on OpenAI's Responses API:
      // aimock serves it (POST /v1/responses) from the same fixtures as chat completions.
      const upstream = new LLMock({ port: 0, host: "127.0.0.1", chunkSize: 6, logLevel: "silent" });
      upstream.addFixtures([
        { match: { userMessage: "durable" }, response: { content: ANSWER } },
        // Paced (400 chunks, 50 ms apart: at least 20 s), so it is still streaming when the stops
        // below are sent; the stop that works ends it.
        { match: { userMessage: "at length" }, response: { content: "word ".repeat(400) }, chunkSize: 5, latency: 50 },
      ]);
      const upstreamUrl = await upstream.start();
      // The block as printed; the environment alone aims it at aimock.
      const app = await startApp([TSX, "runtime.ts"], scratch, {
        ...database(),
        OPENAI_API_KEY: "sk-aimock",
        OPENAI_BASE_URL: `${upstreamUrl.replace(/\/$/, "")}/v1`,
        COPILOTKIT_TELEMETRY_DISABLED: "true",
      });
      try {
        const door: Door = { label: "the manual's runtime.ts", runtimeUrl: `${app.url}/api/copilotkit`, transport: "rest" };
        // The manual's keys.
        const acme = { authorization: "Bearer key-of-acme" };
        const globex = { authorization: "Bearer key-of-globex" };
        expect((await fetch(`${door.runtimeUrl}/info`)).status).toBe(401);
        expect((await fetch(`${door.runtimeUrl}/info`, { headers: { authorization: "Bearer key-of-nobody" } })).status).toBe(401);
        expect((await fetch(`${door.runtimeUrl}/info`, { headers: acme })).status).toBe(200);

        // A chat as CopilotKit's client has it: core 1.75, its key in <CopilotKit headers>.
        const threadId = `pkg-runner-${randomUUID()}`;
        const chat = ckSession("1.75", door, "assistant", threadId, { headers: acme });
        await chat.say("Is this durable?");
        expect(chat.runErrors, app.output()).toEqual([]);
        expect(chat.runFailures).toEqual([]);
        expect(chat.reply()).toBe(ANSWER);
        expect(chat.events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").length).toBeGreaterThan(1);
        expect(chat.finishes.map((f) => f.outcome)).toEqual(["success"]);

        // In Threadline's log: a page load with the same key reads the chat back from it.
        const reload = ckSession("1.75", door, "assistant", threadId, { headers: acme });
        await reload.connect();
        expect(reload.coreErrors).toEqual([]);
        expect(reload.reply()).toBe(ANSWER);
        expect(reload.agent.messages.map((m) => m.id)).toEqual(chat.agent.messages.map((m) => m.id));
        // Another tenant's key does not see it.
        const theirs = await (await postSse(`${door.runtimeUrl}/agent/assistant/connect`, { threadId, runId: "c1", messages: [], state: {}, tools: [], context: [], forwardedProps: {} }, globex)).done;
        expect(theirs).toEqual([]);

        // Nor stop it: only the owner's stop reaches the run.
        const longThread = `pkg-runner-stop-${randomUUID()}`;
        const live = await postSse(
          `${door.runtimeUrl}/agent/assistant/run`,
          { threadId: longThread, runId: "r1", messages: [{ id: "u1", role: "user", content: "Say it at length." }], state: {}, tools: [], context: [], forwardedProps: {} },
          acme,
        );
        await live.waitFor(isType("TEXT_MESSAGE_CONTENT"));
        const stopAs = async (headers: Record<string, string>) => {
          const res = await fetch(`${door.runtimeUrl}/agent/assistant/stop/${longThread}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: "{}" });
          expect(res.status).toBe(200);
          return (await res.json()) as { stopped: boolean };
        };
        expect(await stopAs(globex)).toMatchObject({ stopped: false });
        expect(await stopAs(acme)).toMatchObject({ stopped: true });
        expect(terminals(await live.done).map((f) => f.event.code)).toEqual(["CANCELLED"]);
      } finally {
        await app.stop();
        await upstream.stop();
      }
    }, 2 * APP_START_TIMEOUT_MS);
  });

  it("type-checks every TypeScript block with the project's own TypeScript", async () => {
    await runShellBlock(theBlock(blocks, "install-typescript"), scratch);
    const extra = [...new Set(blocks.flatMap((b) => (b.check?.kind === "typecheck" ? b.check.with : [])))];
    if (extra.length > 0) await run(NPM, ["install", ...extra], { cwd: scratch, timeout: INSTALL_TIMEOUT_MS, maxBuffer: 64 << 20 });
    const files = ["app.ts", "copilotkit-app.ts", "remote.ts", "runtime.ts"];
    for (const b of blocks.filter((b) => b.check?.kind === "typecheck")) {
      // Named by page and line, so that a tsc error says where the block is printed.
      const name = `block-${b.file.replace(/\.md$/, "").replace(/\W+/g, "-")}-line-${b.line}.ts`;
      files.push(name);
      writeFileSync(path.join(scratch, name), b.code);
    }
    // tsc --init's own tsconfig (strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess,
    // skipLibCheck, ...) with only the two changes docs/getting-started.md tells a reader to make:
    // Node's types, and no verbatimModuleSyntax in npm init -y's CommonJS package.
    const tsc = path.join(scratch, "node_modules", "typescript", "bin", "tsc");
    await run(process.execPath, [tsc, "--init"], { cwd: scratch });
    const tsconfig = { extends: "./tsconfig.json", compilerOptions: { noEmit: true, types: ["node"], verbatimModuleSyntax: false }, files };
    writeFileSync(path.join(scratch, "tsconfig.check.json"), JSON.stringify(tsconfig, null, 2));
    const result = await run(process.execPath, [tsc, "-p", path.join(scratch, "tsconfig.check.json")], { cwd: scratch }).catch((err: { stdout: string; stderr: string }) => err);
    expect(`${result.stdout}${result.stderr}`).toBe("");
  }, 2 * INSTALL_TIMEOUT_MS);
});
