/**
 * The signature of a webhook delivery (docs/webhooks.md): `X-Threadline-Signature:
 * t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` with the tenant's secret, else
 * WEBHOOK_SECRET. The timestamp is signed with the body, so a receiver that refuses old
 * timestamps refuses a replayed delivery too. verifyWebhookSignature is the receiver's side,
 * exported for applications written in TypeScript.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "X-Threadline-Signature";
export const IDEMPOTENCY_HEADER = "Idempotency-Key";

export function signatureOf(secret: string, unixSeconds: number, body: string): string {
  return createHmac("sha256", secret).update(`${unixSeconds}.${body}`).digest("hex");
}

export function signatureHeader(secret: string, unixSeconds: number, body: string): string {
  return `t=${unixSeconds},v1=${signatureOf(secret, unixSeconds, body)}`;
}

/**
 * Whether `header` signs `body` with `secret`, at a time at most `toleranceSeconds` (default 300)
 * from `nowSeconds`. Compares in constant time.
 */
export function verifyWebhookSignature(
  secret: string,
  header: string | undefined,
  body: string,
  opts: { toleranceSeconds?: number; nowSeconds?: number } = {},
): boolean {
  if (!header) return false;
  const parts = new Map(header.split(",").map((p) => {
    const at = p.indexOf("=");
    return [p.slice(0, at).trim(), p.slice(at + 1).trim()] as const;
  }));
  const t = Number(parts.get("t"));
  const v1 = parts.get("v1");
  if (!Number.isInteger(t) || !v1 || !/^[0-9a-f]{64}$/.test(v1)) return false;
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - t) > (opts.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(signatureOf(secret, t, body), "hex");
  return timingSafeEqual(expected, Buffer.from(v1, "hex"));
}
