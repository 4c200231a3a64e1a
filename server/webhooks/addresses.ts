/**
 * Which addresses a webhook may not reach unless the deployment allows them (WEBHOOK_ALLOWED_HOSTS):
 * loopback, private, link-local, shared, multicast and reserved ranges, IPv4 and IPv6 (an IPv4
 * address mapped into IPv6 is judged as the IPv4 one). What a server inside a private network
 * must not be made to call on a client's behalf (SSRF).
 */
import { BlockList, isIP } from "node:net";

const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.0.2.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["198.51.100.0", 24], ["203.0.113.0", 24],
  ["224.0.0.0", 4], ["240.0.0.0", 4],
] as const) {
  BLOCKED.addSubnet(net, prefix, "ipv4");
}
for (const [net, prefix] of [
  ["::", 128], ["::1", 128], ["64:ff9b::", 96], ["100::", 64], ["2001:db8::", 32], ["fc00::", 7], ["fe80::", 10], ["ff00::", 8],
] as const) {
  BLOCKED.addSubnet(net, prefix, "ipv6");
}

/** The IPv4 address an IPv6 one carries (::ffff:a.b.c.d), or the address as it is. */
function unmapped(address: string): { address: string; family: "ipv4" | "ipv6" } {
  const lower = address.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped) return { address: mapped[1]!, family: "ipv4" };
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const hi = Number.parseInt(hex[1]!, 16);
    const lo = Number.parseInt(hex[2]!, 16);
    return { address: `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, family: "ipv4" };
  }
  return { address, family: isIP(address) === 6 ? "ipv6" : "ipv4" };
}

/** Whether an IP address is in a range a webhook may not reach by default. */
export function isBlockedAddress(address: string): boolean {
  const { address: a, family } = unmapped(address);
  return BLOCKED.check(a, family);
}
