/**
 * The body of POST <mount>/threads/:threadId/runs (docs/background-runs.md): `{ agentId, input,
 * webhook? }`, where `input` is a RunAgentInput without its threadId (the path names the thread),
 * its runId optional (one is made). The input then passes the very checks of the run route
 * (run-input.ts parseRunRequest), so both doors take and refuse the same runs.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Issue } from "../errors.ts";
import { zodIssues } from "./errors.ts";
import { parseRunRequest, type ParsedRun } from "./run-input.ts";
import { webhookUrlProblem, type AllowedHosts } from "../webhooks/url-policy.ts";

export const BackgroundRunBodySchema = z
  .object({
    agentId: z.string().min(1).max(64),
    input: z.record(z.string(), z.unknown()),
    webhook: z.object({ url: z.string().min(1) }).strict().optional(),
  })
  .strict();

export type BackgroundRun =
  | { ok: true; agentId: string; run: Extract<ParsedRun, { ok: true }>; webhook?: { url: string } }
  | { ok: false; issues: Issue[] };

export function parseBackgroundRun(body: unknown, threadId: string, headers: { get(name: string): string | undefined }, allowed: AllowedHosts): BackgroundRun {
  const parsed = BackgroundRunBodySchema.safeParse(body);
  if (!parsed.success) return { ok: false, issues: zodIssues(parsed.error.issues) };
  const { agentId, input, webhook } = parsed.data;
  const issues: Issue[] = [];
  if (input.threadId !== undefined && input.threadId !== threadId) {
    issues.push({ path: "input.threadId", message: "leave it out: the thread is the one the path names" });
  }
  const url = webhook?.url;
  const problem = url === undefined ? null : webhookUrlProblem(url, allowed);
  if (problem) issues.push({ path: "webhook.url", message: problem });
  const run = parseRunRequest({ messages: [], runId: randomUUID(), ...input, threadId }, headers);
  if (!run.ok) issues.push(...run.issues.map((i) => ({ ...i, path: `input.${i.path}` })));
  if (issues.length > 0 || !run.ok) return { ok: false, issues };
  return { ok: true, agentId, run, ...(url !== undefined && { webhook: { url } }) };
}
