/**
 * Where a webhook may go: http or https, a host, and no address in the ranges addresses.ts blocks
 * unless WEBHOOK_ALLOWED_HOSTS names it. Checked twice, for two reasons: when the URL is given (a
 * clear 400 for what the URL itself shows: a scheme, a literal private address, "localhost"), and
 * at every connection, on the address the name resolved to then (guardedLookup), since a name
 * that resolved to a public address yesterday may resolve to 127.0.0.1 today (DNS rebinding).
 * Check and use are one step there: the connection goes to the very address that was checked.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import { isBlockedAddress } from "./addresses.ts";

export const WEBHOOK_URL_MAX = 2048;

/** Hosts (names or addresses, compared without case) the deployment lets webhooks reach anyway. */
export type AllowedHosts = ReadonlySet<string>;

export function allowedHostsOf(list: readonly string[]): AllowedHosts {
  return new Set(list.map((h) => bareHost(h.toLowerCase())));
}

/** A URL's hostname as an address or name: IPv6 literals lose their brackets. */
function bareHost(hostname: string): string {
  return hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
}

/** Why `url` may not receive webhooks, or null. A name is judged at connection time (guardedLookup). */
export function webhookUrlProblem(url: string, allowed: AllowedHosts): string | null {
  if (url.length > WEBHOOK_URL_MAX) return `must be at most ${WEBHOOK_URL_MAX} characters`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "must be an absolute URL such as https://example.com/hooks/threadline";
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return `must be http or https, not ${parsed.protocol.replace(/:$/, "")}`;
  const host = bareHost(parsed.hostname.toLowerCase());
  if (host === "") return "must name a host";
  if (allowed.has(host)) return null;
  if (host === "localhost" || host.endsWith(".localhost")) return `names a loopback host ("${host}"); a deployment that means it lists it in WEBHOOK_ALLOWED_HOSTS`;
  if (isIP(host) !== 0 && isBlockedAddress(host)) {
    return `names a loopback, private or reserved address (${host}); a deployment that means it lists it in WEBHOOK_ALLOWED_HOSTS`;
  }
  return null;
}

/** Thrown by guardedLookup: the name resolved only to addresses a webhook may not reach. */
export class BlockedAddressError extends Error {
  override readonly name = "BlockedAddressError";
  readonly code = "WEBHOOK_ADDRESS_BLOCKED";
}

/**
 * The `lookup` of a webhook's connection: resolves the name, drops the addresses a webhook may not
 * reach (unless the name itself or the address is allowed), and hands the connection the first
 * address left, or fails it. Node connects to what lookup returns: nothing can resolve the name
 * again between the check and the connect. (A URL whose host is an address is not looked up:
 * webhookUrlProblem judged that address, and it cannot change.)
 */
export function guardedLookup(allowed: AllowedHosts): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { family: options.family ?? 0, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, "", 0);
      const nameAllowed = allowed.has(hostname.toLowerCase());
      const usable = addresses.filter((a) => nameAllowed || allowed.has(a.address.toLowerCase()) || !isBlockedAddress(a.address));
      const first = usable[0];
      if (!first) {
        return callback(
          new BlockedAddressError(`${hostname} resolves only to loopback, private or reserved addresses (${addresses.map((a) => a.address).join(", ")}); list it in WEBHOOK_ALLOWED_HOSTS to allow it`),
          "",
          0,
        );
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
      callback(null, first.address, first.family);
    });
  };
}
