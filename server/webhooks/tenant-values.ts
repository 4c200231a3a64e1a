/**
 * `tenant:value` lists (WEBHOOK_TENANT_SECRETS, WEBHOOK_TENANT_URLS): comma-separated, blanks
 * around entries ignored, each split at its FIRST ':' (a URL keeps its own colons), the tenant
 * named as API_KEYS names it (server/tenant.ts). Every entry needs its tenant: unlike API_KEYS,
 * there is no default-tenant shorthand, since `https://...` would read as tenant "https".
 */
import { TENANT_NAME } from "../tenant.ts";

export class TenantValuesError extends Error {
  override readonly name = "TenantValuesError";
}

/** The map tenant → value; throws TenantValuesError naming the bad entry (never its value: it may be a secret). */
export function parseTenantValues(raw: string | undefined, what: string): Map<string, string> {
  const out = new Map<string, string>();
  if (raw === undefined) return out;
  for (const [i, entry] of raw.split(",").map((e) => e.trim()).filter(Boolean).entries()) {
    const colon = entry.indexOf(":");
    const tenant = colon < 0 ? "" : entry.slice(0, colon).trim();
    const value = colon < 0 ? "" : entry.slice(colon + 1).trim();
    if (!TENANT_NAME.test(tenant)) throw new TenantValuesError(`entry ${i + 1} does not start with a tenant name and ':' (write tenant:${what})`);
    if (value === "") throw new TenantValuesError(`the entry of tenant "${tenant}" has no ${what} after the ':'`);
    if (out.has(tenant)) throw new TenantValuesError(`tenant "${tenant}" is given twice; give it one ${what}`);
    out.set(tenant, value);
  }
  return out;
}
