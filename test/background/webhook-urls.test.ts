/**
 * Where a webhook may go (server/webhooks/url-policy.ts): the URL's shape and literal addresses
 * when it is given, and the address a name resolves to when the connection is made.
 */
import type { LookupAddress } from "node:dns";
import { describe, expect, it } from "vitest";
import { isBlockedAddress } from "../../server/webhooks/addresses.ts";
import { postWebhook } from "../../server/webhooks/deliver.ts";
import { allowedHostsOf, guardedLookup, webhookUrlProblem } from "../../server/webhooks/url-policy.ts";

const none = allowedHostsOf([]);

describe("webhook URLs", () => {
  it("refuses other schemes, loopback names and private or reserved literal addresses, unless allowed", () => {
    expect(webhookUrlProblem("https://hooks.example.com/x", none)).toBeNull();
    expect(webhookUrlProblem("http://93.184.216.34/x", none)).toBeNull();
    for (const url of ["ftp://example.com", "file:///etc/passwd", "not a url", "http://localhost:8080/", "http://127.0.0.1/", "http://10.1.2.3/", "http://[::1]/", "http://[::ffff:127.0.0.1]/", "http://169.254.169.254/latest", "http://192.168.1.1/", "http://0.0.0.0/", "http://[fd00::1]/"]) {
      expect(webhookUrlProblem(url, none), url).not.toBeNull();
    }
    expect(webhookUrlProblem("http://127.0.0.1:9/", allowedHostsOf(["127.0.0.1"]))).toBeNull();
    expect(webhookUrlProblem("http://localhost:9/", allowedHostsOf(["LOCALHOST"]))).toBeNull();
  });

  it("judges IPv4, IPv6 and IPv4-mapped addresses alike", () => {
    expect(isBlockedAddress("127.0.0.1")).toBe(true);
    expect(isBlockedAddress("::ffff:7f00:1")).toBe(true);
    expect(isBlockedAddress("fe80::1")).toBe(true);
    expect(isBlockedAddress("8.8.8.8")).toBe(false);
    expect(isBlockedAddress("2606:4700::1111")).toBe(false);
  });

  it("checks the resolved address at connection time: a name that resolves to loopback is refused, unless allowed", async () => {
    const lookup = (allowed: string[]) =>
      new Promise<{ err: Error | null; address: string }>((resolve) =>
        guardedLookup(allowedHostsOf(allowed))("localhost", { family: 4 }, (err: Error | null, address: string | LookupAddress[]) => resolve({ err, address: String(address) })),
      );
    const refused = await lookup([]);
    expect(refused.err?.message).toMatch(/resolves only to loopback, private or reserved addresses/);
    const allowed = await lookup(["localhost"]);
    expect(allowed.err).toBeNull();
    expect(allowed.address).toBe("127.0.0.1");
    // The delivery itself fails with that reason: it never connects.
    const outcome = await postWebhook("http://localhost.:9/x", "{}", {}, { timeoutMs: 2_000, allowed: none });
    expect(outcome).toMatchObject({ ok: false, status: null });
  });
});
