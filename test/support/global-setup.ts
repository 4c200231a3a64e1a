/** Once per `vitest run`, before any test file: the fresh PGlite cluster's files (pglite.ts). */
import { makeFreshClusterFiles } from "./pglite.ts";

export default async function setup(): Promise<void> {
  await makeFreshClusterFiles();
}
