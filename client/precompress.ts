/**
 * Vite plugin: after the build writes dist/client, every compressible file there gets a Brotli
 * (`.br`) copy next to it, and the files of the first load (index.html and what it names) a gzip
 * (`.gz`) one too; server/http/static.ts sends them as they are to a browser that accepts them.
 * Compressed once, at the highest levels, when nobody waits; rejected: compressing per request
 * (CPU on every load, and only the fast levels are affordable there). A copy that saves too little
 * is not written, so the server sends the original.
 *
 * Why gzip only for the first load: every browser the app runs in accepts Brotli, and a gzip copy
 * of every lazy chunk (the code highlighter's grammars are most of them) added 4.7 MB to the
 * package, which every install of it downloads. A client without Brotli still gets the first load
 * compressed, and the rest decompressed by the server from the Brotli copy.
 *
 * Why the original goes once its Brotli copy is written (all but index.html, which the server
 * reads to know the app is built): the package then ships each asset once, 9.8 MB of JavaScript
 * less in every install; the server streams it decompressed to the rare client without Brotli
 * (server/http/static.ts). Rejected: keeping the gzip copies in place of the originals for those
 * clients (0.6 MB for the first load is worth it, 4.7 MB for the rest was not).
 */
import { readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import type { Plugin } from "vite";

const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|txt|map|wasm)$/;
/** Below this a file fits in one packet either way; not worth a second copy. */
const MIN_BYTES = 1024;
/** A copy must save at least this share of the original to be kept. */
const MIN_SAVING = 0.1;

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : [p];
  });
}

/** The one file kept as it is next to its copies: the server's sign that the app is built. */
const KEEP_ORIGINAL = /(^|[\\/])index\.html$/;

async function compressFile(file: string, withGzip: boolean): Promise<void> {
  const raw = readFileSync(file);
  const [br, gzipped] = await Promise.all([
    brotli(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } }),
    withGzip ? gz(raw, { level: 9 }) : undefined,
  ]);
  if (gzipped && gzipped.length <= raw.length * (1 - MIN_SAVING)) writeFileSync(`${file}.gz`, gzipped);
  if (br.length <= raw.length * (1 - MIN_SAVING)) {
    writeFileSync(`${file}.br`, br);
    if (!KEEP_ORIGINAL.test(file)) unlinkSync(file);
  }
}

/** index.html and the files it names (`src` and `href` under the build's own root): the first load. */
function firstLoad(outDir: string): Set<string> {
  const index = path.join(outDir, "index.html");
  const named = [...readFileSync(index, "utf8").matchAll(/(?:src|href)="\/([^"?#]+)"/g)].map((m) => path.join(outDir, m[1]!));
  return new Set([index, ...named]);
}

export function precompress(): Plugin {
  let outDir = "";
  return {
    name: "threadline-precompress",
    apply: "build",
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      const files = filesUnder(outDir).filter((f) => COMPRESSIBLE.test(f) && statSync(f).size >= MIN_BYTES);
      const first = firstLoad(outDir);
      // zlib runs on libuv's thread pool: a few at a time keeps it busy without queuing all.
      for (let i = 0; i < files.length; i += 4) await Promise.all(files.slice(i, i + 4).map((f) => compressFile(f, first.has(f))));
    },
  };
}
