/**
 * The real clients, when the application has them installed: each run's exact response (status,
 * content type, bytes) is served again from 127.0.0.1 to `@ag-ui/client` (whatever version is
 * installed) and to `@ag-ui/client-0059` (0.0.59 under that npm alias, as CopilotKit 1.74/1.75
 * ship it), seeded with the run's messages and state. A stream is accepted when runAgent resolves
 * without onRunFailed. Replaying instead of asking the server again keeps the model's answer
 * identical for every reader. Not installed: reported unsupported, and `event-schema` still holds.
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

async function load(pkg: string): Promise<{ ctor: AgentCtor; version: string } | undefined> {
  try {
    const mod = (await import(pkg)) as { HttpAgent: AgentCtor };
    const require = createRequire(import.meta.url);
    const { version } = require(`${pkg}/package.json`) as { version: string };
    return { ctor: mod.HttpAgent, version };
  } catch {
    return undefined;
  }
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

function clientRule(name: string, pkg: string, label: string): RuleSpec {
  return {
    name,
    title: `The real ${label} accepts every run's stream (its parser, verifier and apply stage), when installed.`,
    async check(ctx): Promise<Verdict> {
      const client = await load(pkg);
      if (!client) return unsupported(`inconclusive: ${pkg} is not installed here (install it to run the real client; event-schema still checks shapes)`);
      const runs = streamed(ctx);
      if (runs.length === 0) return fail("no run answered with a stream to read");
      const replay = await replayServer(runs);
      const warnings: string[] = [];
      try {
        for (const [i, run] of runs.entries()) {
          const out = await accepts(client.ctor, replay.url(i), run);
          warnings.push(...out.warnings);
          if (out.error) return fail(`${pkg}@${client.version} rejected the stream: ${out.error}`, { scenario: run.scenario });
        }
      } finally {
        await replay.close();
      }
      const note = warnings.length > 0 ? `; ${warnings.length} warnings, first: ${warnings[0]!.slice(0, 200)}` : "";
      return pass(`${pkg}@${client.version} accepted ${runs.length} streams${note}`);
    },
  };
}

export const client100 = clientRule("client-1.0", "@ag-ui/client", "@ag-ui/client (1.0.0 or whichever is installed)");
export const client0059 = clientRule("client-0.0.59", "@ag-ui/client-0059", "@ag-ui/client 0.0.59 (npm alias @ag-ui/client-0059)");
