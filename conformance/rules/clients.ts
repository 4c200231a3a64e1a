/**
 * The real clients, when the application has them installed: each run's exact response (status,
 * content type, bytes) is served again from 127.0.0.1 to each line of `@ag-ui/client` the
 * application has, seeded with the run's messages and state. A stream is accepted when runAgent
 * resolves without onRunFailed. Replaying instead of asking the server again keeps the model's
 * answer identical for every reader. Not installed: reported unsupported, and `event-schema`
 * still holds.
 *
 * Two lines, each found where the application installed it: 1.x as `@ag-ui/client`, and 0.0.59
 * (what CopilotKit 1.74/1.75 ship) as `@ag-ui/client` itself or under the npm alias
 * `@ag-ui/client-0059`. Each verdict names the package and version it ran. Rejected: one rule per
 * package name, which called whatever `@ag-ui/client` was installed "1.0" and, with 0.0.59
 * installed under its own name, said 0.0.59 was missing.
 */
import { createRequire } from "node:module";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fail, pass, unsupported, type Verdict } from "../types.ts";
import type { KitRun } from "../scenarios.ts";
import { streamed, type RuleSpec } from "./rule.ts";

interface AgentLike {
  runAgent(params?: object, subscriber?: object): Promise<unknown>;
}
type AgentCtor = new (config: { url: string; threadId?: string; initialMessages?: unknown[]; initialState?: unknown }) => AgentLike;

interface Client {
  ctor: AgentCtor;
  /** The name it was found under, and its version: `@ag-ui/client-0059@0.0.59`. */
  found: string;
  version: string;
}

/**
 * `pkg` as the application installed it, found from `from` (a file or directory path: the kit's
 * own location by default, which Node's resolution walks up to the application's node_modules).
 */
function load(pkg: string, from: string): Client | undefined {
  try {
    const require = createRequire(from);
    const { version } = require(`${pkg}/package.json`) as { version: string };
    const mod = require(pkg) as { HttpAgent: AgentCtor };
    return { ctor: mod.HttpAgent, found: `${pkg}@${version}`, version };
  } catch {
    return undefined;
  }
}

/** The line a version belongs to. */
type Line = "1.x" | "0.0.59";
const lineOf = (version: string): Line | undefined => (/^1\./.test(version) ? "1.x" : version === "0.0.59" ? "0.0.59" : undefined);

/** The installed client of `line`: under `@ag-ui/client`, else (0.0.59) under its alias. */
function clientOf(line: Line, from: string): { client?: Client; installed: string[] } {
  const candidates = line === "1.x" ? ["@ag-ui/client"] : ["@ag-ui/client", "@ag-ui/client-0059"];
  const installed: string[] = [];
  for (const pkg of candidates) {
    const client = load(pkg, from);
    if (!client) continue;
    if (lineOf(client.version) === line) return { client, installed };
    installed.push(client.found);
  }
  return { installed };
}

/** Serves run i's recorded response at /i. */
async function replayServer(runs: readonly KitRun[]) {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const run = runs[Number((req.url ?? "/").slice(1))];
      if (!run) return void res.writeHead(404).end();
      res.writeHead(run.exchange.status || 502, { "Content-Type": run.exchange.contentType || "text/plain" });
      res.end(run.exchange.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (i: number) => `http://127.0.0.1:${port}/${i}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Runs the agent, capturing the console lines the clients print their warnings to. */
async function accepts(ctor: AgentCtor, url: string, run: KitRun): Promise<{ error?: string; warnings: string[] }> {
  const agent = new ctor({
    url,
    threadId: run.input.threadId,
    initialMessages: structuredClone(run.input.messages),
    initialState: structuredClone(run.input.state),
  });
  const warnings: string[] = [];
  let error: string | undefined;
  const { warn, error: consoleError } = console;
  const record = (...args: unknown[]) => warnings.push(args.map((a) => (a instanceof Error ? a.message : String(a))).join(" "));
  console.warn = record;
  console.error = record;
  try {
    await agent.runAgent(
      { runId: run.input.runId, tools: run.input.tools, context: run.input.context, forwardedProps: run.input.forwardedProps },
      {
        onRunFailed: ({ error: e }: { error: unknown }) => {
          error ??= e instanceof Error ? e.message : String(e);
        },
      },
    );
  } catch (e) {
    error ??= e instanceof Error ? e.message : String(e);
  } finally {
    console.warn = warn;
    console.error = consoleError;
  }
  return { ...(error !== undefined && { error }), warnings };
}

const INSTALL: Record<Line, string> = {
  "1.x": "npm i -D @ag-ui/client@1",
  "0.0.59": "npm i -D @ag-ui/client-0059@npm:@ag-ui/client@0.0.59",
};

function clientRule(name: string, line: Line): RuleSpec {
  return {
    name,
    title: `The real @ag-ui/client ${line} accepts every run's stream (its parser, verifier and apply stage), when installed.`,
    async check(ctx): Promise<Verdict> {
      const { client, installed } = clientOf(line, ctx.resolveClientsFrom);
      if (!client) {
        const has = installed.length > 0 ? `the installed ${installed.join(" and ")} is not ${line}` : `@ag-ui/client ${line} is not installed here`;
        return unsupported(`inconclusive: ${has} (${INSTALL[line]} to run it; event-schema still checks shapes)`);
      }
      const runs = streamed(ctx);
      if (runs.length === 0) return fail("no run answered with a stream to read");
      const replay = await replayServer(runs);
      const warnings: string[] = [];
      try {
        for (const [i, run] of runs.entries()) {
          const out = await accepts(client.ctor, replay.url(i), run);
          warnings.push(...out.warnings);
          if (out.error) return fail(`${client.found} rejected the stream: ${out.error}`, { scenario: run.scenario });
        }
      } finally {
        await replay.close();
      }
      const note = warnings.length > 0 ? `; ${warnings.length} warnings, first: ${warnings[0]!.slice(0, 200)}` : "";
      return pass(`${client.found} accepted ${runs.length} streams${note}`);
    },
  };
}

export const client100 = clientRule("client-1.0", "1.x");
export const client0059 = clientRule("client-0.0.59", "0.0.59");
