/**
 * One delivery attempt: POST the body to the URL, signed, within `timeoutMs` for all of it
 * (connection, TLS, the answer's headers), reading at most RESPONSE_READ_MAX bytes of the answer
 * (kept for the run's record), following no redirect (a 3xx is a failure: a redirect could lead
 * where the URL check would not have let the delivery go). The connection's address is checked as
 * it is made (url-policy.ts guardedLookup).
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { guardedLookup, webhookUrlProblem, type AllowedHosts } from "./url-policy.ts";

/** What of the receiver's answer is read and kept: enough for an error message, never a download. */
export const RESPONSE_READ_MAX = 1024;

export type AttemptOutcome = { ok: true; status: number } | { ok: false; status: number | null; error: string };

export async function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: { timeoutMs: number; allowed: AllowedHosts; signal?: AbortSignal },
): Promise<AttemptOutcome> {
  // The URL is judged again: a run's URL was checked when given, but the allowed hosts may have
  // changed since, and a configured URL was only checked for its shape.
  const problem = webhookUrlProblem(url, opts.allowed);
  if (problem) return { ok: false, status: null, error: `the URL ${problem}` };
  const parsed = new URL(url);
  const signal = opts.signal ? AbortSignal.any([opts.signal, AbortSignal.timeout(opts.timeoutMs)]) : AbortSignal.timeout(opts.timeoutMs);
  const send = parsed.protocol === "https:" ? httpsRequest : httpRequest;
  const bytes = Buffer.from(body);
  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    const done = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    const req = send(
      parsed,
      {
        method: "POST",
        headers: { ...headers, "Content-Type": "application/json", "Content-Length": String(bytes.length) },
        signal,
        // A name is resolved and judged in the same step that connects (an address literal was
        // judged above and is not looked up).
        ...(isIP(parsed.hostname.replace(/^\[|\]$/g, "")) === 0 && { lookup: guardedLookup(opts.allowed) }),
        agent: false,
      },
      (res) => void readAnswer(res).then((text) => {
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) done({ ok: true, status });
        else done({ ok: false, status, error: `the receiver answered ${status}${text ? `: ${text}` : ""}` });
      }),
    );
    req.on("error", (err: Error) => {
      const reason = signal.aborted && !opts.signal?.aborted ? `no answer within ${opts.timeoutMs} ms (WEBHOOK_TIMEOUT_MS)` : err.message;
      done({ ok: false, status: null, error: reason });
    });
    req.end(bytes);
  });
}

/** The first RESPONSE_READ_MAX bytes of the answer, as text; the rest is not read (the socket is closed). */
function readAnswer(res: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = () => resolve(Buffer.concat(chunks).toString("utf8").slice(0, RESPONSE_READ_MAX).replace(/\s+/g, " ").trim());
    res.on("data", (chunk: Buffer) => {
      if (size >= RESPONSE_READ_MAX) return;
      chunks.push(chunk.subarray(0, RESPONSE_READ_MAX - size));
      size += chunk.length;
      if (size >= RESPONSE_READ_MAX) {
        res.destroy();
        finish();
      }
    });
    res.on("end", finish);
    res.on("error", finish);
    res.on("close", finish);
  });
}
