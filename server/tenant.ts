/**
 * Tenants: who owns a thread. A caller's tenant comes from the API key it presented (API_KEYS
 * maps keys to tenants); a thread belongs to the tenant whose key created it, and every read,
 * list, cancel and delete is scoped to the caller's tenant in SQL.
 *
 * The rules for API_KEYS (`tenantA:key1,tenantB:key2,key3`), owned here and documented in the
 * README under "Tenants":
 * - entries are separated by commas; blanks around them are ignored;
 * - an entry with a ':' is `tenant:key`, split at the FIRST ':' (so a key may contain ':' only
 *   behind a tenant prefix: `default:a:b` is the key `a:b` of the default tenant);
 * - an entry without ':' is a key of the default tenant, the tenant every thread had before
 *   tenants existed (and the only one when API_KEYS is unset);
 * - a tenant name is 1-64 characters of [A-Za-z0-9_.-]; a key may not be empty, and one key
 *   may not belong to two tenants.
 */

/** The tenant of plain keys, of every caller when API_KEYS is unset, and of older threads. */
export const DEFAULT_TENANT = "default";

/**
 * Letters, digits and `_ . -`: safe in logs, URLs and metric labels, and never a ':' or ','
 * (which would make API_KEYS ambiguous).
 */
export const TENANT_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

export interface ApiKey {
  key: string;
  tenant: string;
}

export class ApiKeysError extends Error {
  override readonly name = "ApiKeysError";
}

/** Parses API_KEYS; throws ApiKeysError with a sentence naming the bad entry. */
export function parseApiKeys(raw: string | undefined): ApiKey[] {
  if (raw === undefined) return [];
  const keys: ApiKey[] = [];
  const tenantOfKey = new Map<string, string>();
  for (const entry of raw.split(",").map((e) => e.trim()).filter(Boolean)) {
    const colon = entry.indexOf(":");
    const tenant = colon < 0 ? DEFAULT_TENANT : entry.slice(0, colon).trim();
    const key = colon < 0 ? entry : entry.slice(colon + 1).trim();
    // Only the tenant name is echoed: the message lands in logs, and the key is a secret.
    if (!TENANT_NAME.test(tenant)) {
      throw new ApiKeysError(
        `the tenant name ${JSON.stringify(tenant)} is not 1-64 characters of letters, digits, '_', '.' or '-' ` +
          `(a key that contains ':' needs a tenant prefix: write it as ${DEFAULT_TENANT}:<key>)`,
      );
    }
    if (key === "") throw new ApiKeysError(`the entry for tenant "${tenant}" has no key after the ':'`);
    const owner = tenantOfKey.get(key);
    if (owner !== undefined && owner !== tenant) {
      throw new ApiKeysError(`one key is given to both tenant "${owner}" and tenant "${tenant}"; give each tenant its own keys`);
    }
    if (owner === undefined) keys.push({ key, tenant });
    tenantOfKey.set(key, tenant);
  }
  return keys;
}
