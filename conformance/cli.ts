#!/usr/bin/env node
/**
 * npx threadline-conformance <url> [--agent-path /api/agents/default] [--path /run]
 *   [--header "Authorization: Bearer …"]… [--timeout-ms 120000] [--delete-url <url with {threadId}>] [--json]
 *
 * Prints the report (or the JSON of it) and exits 1 when any rule failed, 2 on a usage error.
 */
import { parseArgs } from "node:util";
import { checkAgUiServer, type CheckOptions } from "./check.ts";
import { formatReport } from "./report.ts";

const USAGE = `Usage: threadline-conformance <url> [--agent-path <path>] [--path <path>] [--header "Name: value"]... [--timeout-ms <ms>] [--delete-url <url>] [--json]

  <url>           the AG-UI run endpoint, or the server's origin with --agent-path or --path
  --agent-path    the agent's base path (e.g. /api/agents/default): runs at <agent-path>/run,
                  and enables the optional connect, resume and capabilities probes
  --path          the run endpoint's path, when it is not <agent-path>/run
  --header        a request header, repeatable (e.g. "Authorization: Bearer sk-…")
  --timeout-ms    bound on each response (default 120000)
  --delete-url    after the check, DELETE each thread the kit created at this URL, its
                  {threadId} replaced (Threadline: http://host/api/threads/{threadId})
  --json          print the report as JSON`;

function usage(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

export function parseHeader(raw: string): [string, string] {
  const colon = raw.indexOf(":");
  if (colon <= 0) throw new Error(`--header "${raw}" is not "Name: value"`);
  return [raw.slice(0, colon).trim(), raw.slice(colon + 1).trim()];
}

function parseCli() {
  return parseArgs({
    allowPositionals: true,
    options: {
      "agent-path": { type: "string" },
      path: { type: "string" },
      header: { type: "string", multiple: true },
      "timeout-ms": { type: "string" },
      "delete-url": { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
}

async function main(): Promise<void> {
  let parsed: ReturnType<typeof parseCli>;
  try {
    parsed = parseCli();
  } catch (err) {
    usage((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (positionals.length !== 1) usage("Give exactly one URL.");
  const url = positionals[0]!;
  if (!URL.canParse(url)) usage(`"${url}" is not a URL.`);
  const opts: CheckOptions = {};
  if (values["agent-path"] !== undefined) opts.agentPath = values["agent-path"];
  if (values.path !== undefined) opts.path = values.path;
  if (values["timeout-ms"] !== undefined) {
    const ms = Number(values["timeout-ms"]);
    if (!Number.isInteger(ms) || ms <= 0) usage(`--timeout-ms "${values["timeout-ms"]}" is not a positive integer.`);
    opts.timeoutMs = ms;
  }
  try {
    opts.headers = Object.fromEntries((values.header ?? []).map(parseHeader));
  } catch (err) {
    usage((err as Error).message);
  }
  const deleteUrl = values["delete-url"];
  if (deleteUrl !== undefined) {
    if (!deleteUrl.includes("{threadId}") || !URL.canParse(deleteUrl.replace("{threadId}", "x"))) usage(`--delete-url "${deleteUrl}" is not a URL with {threadId} in it.`);
    const headers = opts.headers ?? {};
    opts.deleteThread = async (threadId) => {
      const target = deleteUrl.replace("{threadId}", encodeURIComponent(threadId));
      const res = await fetch(target, { method: "DELETE", headers, signal: AbortSignal.timeout(opts.timeoutMs ?? 120_000) });
      await res.body?.cancel();
      if (!res.ok) throw new Error(`DELETE ${target} answered ${res.status}`);
    };
  }
  const report = await checkAgUiServer(url, opts);
  process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report, url));
  process.exitCode = report.failed.length > 0 ? 1 : 0;
}

await main();
