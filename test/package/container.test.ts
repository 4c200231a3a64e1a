/**
 * The Dockerfile and compose.yaml, checked as far as a machine without a Docker daemon allows:
 * the files say what a deployment needs (a non-root user, bubblewrap, a readiness health check,
 * Postgres beside it and waited for), and the image's entrypoint and health check are run here,
 * outside a container, on the build `.ci/run` made (dist/), with the environment the image sets.
 * Rejected: hadolint (not packaged for Debian here) and a test that only greps the files, which
 * would pass with a CMD that does not start.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { spawnMain } from "../support/main-process.ts";
import { boundUrl, expectServesThenStops, START_BOUND_MS } from "../support/readiness-probe.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");

interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions, continuation lines joined and comments dropped, by stage. */
function stages(text: string): Instruction[][] {
  const joined = text.replace(/\\\n/g, " ");
  const out: Instruction[][] = [];
  for (const raw of joined.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const [keyword, ...rest] = line.split(/\s+/);
    const ins = { keyword: keyword!.toUpperCase(), args: rest.join(" ") };
    if (ins.keyword === "FROM") out.push([]);
    out.at(-1)!.push(ins);
  }
  return out;
}

/** An exec-form argument list (`["node", "x"]`) after any `--flag=value` options. */
function execForm(args: string): string[] {
  return JSON.parse(args.slice(args.indexOf("["))) as string[];
}

/** `ENV A=1 B=2` lines as one record. */
function envOf(stage: Instruction[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const ins of stage.filter((i) => i.keyword === "ENV")) {
    for (const pair of ins.args.split(/\s+/)) {
      const [k, v] = pair.split("=");
      env[k!] = v!;
    }
  }
  return env;
}

const dockerfile = stages(readFileSync(path.join(ROOT, "Dockerfile"), "utf8"));
const final = dockerfile.at(-1)!;
const one = (keyword: string) => {
  const found = final.filter((i) => i.keyword === keyword);
  expect(found, `the final stage's ${keyword}`).toHaveLength(1);
  return found[0]!;
};

describe("Dockerfile", () => {
  it("builds in one stage and runs in another, as the unprivileged node user, with bubblewrap and a /readyz health check", () => {
    expect(dockerfile.length).toBeGreaterThanOrEqual(2);
    const user = one("USER").args;
    expect(["root", "0"]).not.toContain(user.split(":")[0]);
    expect(final.some((i) => i.keyword === "RUN" && /apt-get install .*\bbubblewrap\b/.test(i.args))).toBe(true);
    const health = one("HEALTHCHECK").args;
    expect(health).toMatch(/--start-period=\d+s/);
    expect(execForm(health).join(" ")).toContain("/readyz");
    expect(one("STOPSIGNAL").args).toBe("SIGTERM");
    // The files the build stage copies from the context exist, and the context leaves out what
    // must not go in (dependencies and builds are made inside; data and secrets never).
    for (const ins of dockerfile[0]!.filter((i) => i.keyword === "COPY" && !i.args.startsWith("--from"))) {
      for (const src of ins.args.split(/\s+/).slice(0, -1)) expect(existsSync(path.join(ROOT, src)), src).toBe(true);
    }
    const ignored = readFileSync(path.join(ROOT, ".dockerignore"), "utf8").split("\n").map((l) => l.trim());
    for (const entry of ["node_modules", "dist", "data", ".env", ".git"]) expect(ignored).toContain(entry);
  });

  const cmd = execForm(one("CMD").args);
  const built = existsSync(path.join(ROOT, cmd[1] ?? ""));
  if (!built) console.warn(`[container] SKIPPED the entrypoint run: ${cmd[1]} is missing (npm run build makes it; .ci/run builds before the tests)`);
  const dataDir = mkdtempSync(path.join(tmpdir(), "threadline-container-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it.skipIf(!built)(
    "its CMD, run outside a container with the image's environment, serves; its health check fails where nothing answers and passes once it serves (a run is accepted); SIGTERM ends it cleanly",
    async () => {
      expect(cmd[0]).toBe("node");
      // The image's environment, but a free port on loopback and a data directory of this test's.
      const child = spawnMain({ ...envOf(final), HOST: "127.0.0.1", PORT: "0", DATA_DIR: dataDir }, cmd.slice(1));
      try {
        const health = execForm(one("HEALTHCHECK").args);
        const check = (port: string) =>
          new Promise<number | null>((resolve) => {
            const p = spawn(process.execPath, health.slice(1), { env: { ...process.env, PORT: port }, stdio: "ignore" });
            p.once("exit", (code) => resolve(code));
          });
        // Nothing listens on this port: the check fails rather than passing on an error.
        expect(await check("1")).not.toBe(0);
        const url = await boundUrl(child);
        const port = new URL(url).port;
        const deadline = performance.now() + START_BOUND_MS;
        while ((await check(port)) !== 0) {
          if (performance.now() > deadline) throw new Error(`the health check never passed:\n${child.output()}`);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        await expectServesThenStops(child, url);
      } finally {
        await child.kill("SIGKILL");
      }
    },
    START_BOUND_MS + 60_000,
  );
});

describe("compose.yaml", () => {
  const compose = parseYaml(readFileSync(path.join(ROOT, "compose.yaml"), "utf8")) as {
    services: Record<string, { build?: string; image?: string; environment?: Record<string, string>; depends_on?: Record<string, { condition: string }>; healthcheck?: { test: string[] }; stop_grace_period?: string; ports?: string[] }>;
  };

  it("runs Threadline built from this Dockerfile beside Postgres, started once Postgres is healthy, on the database it names", () => {
    const { threadline, postgres } = compose.services;
    expect(threadline?.build).toBe(".");
    expect(postgres?.image).toMatch(/^postgres:\d+/);
    expect(postgres?.healthcheck?.test).toContain("pg_isready");
    expect(threadline?.depends_on?.postgres?.condition).toBe("service_healthy");
    const db = new URL(threadline!.environment!.DATABASE_URL!);
    expect(db.hostname).toBe("postgres");
    expect(db.username).toBe(postgres!.environment!.POSTGRES_USER);
    expect(db.password).toBe(postgres!.environment!.POSTGRES_PASSWORD);
    expect(db.pathname.slice(1)).toBe(postgres!.environment!.POSTGRES_DB);
    expect(threadline?.ports).toContain(`${envOf(final).PORT}:${envOf(final).PORT}`);
  });

  it("gives a stopping instance longer than its drain (DRAIN_TIMEOUT_MS's default) before SIGKILL", async () => {
    const { DEFAULT_DRAIN_TIMEOUT_MS } = await import("../../server/config.ts");
    const grace = /^(\d+)s$/.exec(compose.services.threadline?.stop_grace_period ?? "");
    expect(grace).not.toBeNull();
    expect(Number(grace![1]) * 1000).toBeGreaterThan(DEFAULT_DRAIN_TIMEOUT_MS);
  });
});
