/**
 * The app's static route (server/http/static.ts) on a small build of its own: the precompressed
 * copy each Accept-Encoding gets, with the original's type; the caching headers of hashed assets
 * and of index.html; the single-page fallback; and paths that must not leave the build.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import { get as httpGet, type IncomingHttpHeaders, type Server } from "node:http";
import express from "express";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientApp } from "../../server/http/static.ts";

const JS = `export const answer = ${JSON.stringify("x".repeat(4000))};\n`;
/** Large enough that the decompressed answer spans several stream chunks (64 KiB each). */
const LAZY = `export const grammar = ${JSON.stringify(Array.from({ length: 30_000 }, (_, i) => `rule-${i}`).join("|"))};\n`;
const HTML = `<!doctype html><html><head><script type="module" src="/assets/app-Ab12Cd34.js"></script></head><body>${" ".repeat(2000)}</body></html>`;

describe("the client app's static route", () => {
  let dir: string;
  let server: Server;
  let port = 0;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "threadline-static-"));
    mkdirSync(path.join(dir, "assets"));
    const js = path.join(dir, "assets", "app-Ab12Cd34.js");
    writeFileSync(js, JS);
    writeFileSync(`${js}.br`, brotliCompressSync(JS));
    writeFileSync(`${js}.gz`, gzipSync(JS));
    // As the build leaves a large lazy asset: its Brotli copy only (client/precompress.ts).
    writeFileSync(path.join(dir, "assets", "lazy-Ef56Gh78.js.br"), brotliCompressSync(LAZY));
    // Too small to have been compressed by the build: sent as it is.
    writeFileSync(path.join(dir, "assets", "tiny-Zz99.css"), "body{margin:0}");
    writeFileSync(path.join(dir, "index.html"), HTML);
    writeFileSync(path.join(dir, "index.html.br"), brotliCompressSync(HTML));
    writeFileSync(path.join(dir, "index.html.gz"), gzipSync(HTML));
    writeFileSync(path.join(dir, ".secret"), "SECRET-TOKEN");
    const app = express();
    app.use(clientApp({ distDir: dir }));
    server = app.listen(0);
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  /** The bytes as sent: node:http decodes nothing (fetch and supertest would undo the encoding). */
  function get(urlPath: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
    return new Promise((resolve, reject) => {
      httpGet({ host: "127.0.0.1", port, path: urlPath, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      }).on("error", reject);
    });
  }

  it("sends a hashed asset as Brotli, then gzip, then plain, by Accept-Encoding, cached for good", async () => {
    const br = await get("/assets/app-Ab12Cd34.js", { "Accept-Encoding": "gzip, deflate, br, zstd" });
    expect(br.status).toBe(200);
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers["content-type"]).toMatch(/^text\/javascript|^application\/javascript/);
    expect(br.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(br.headers.vary).toMatch(/Accept-Encoding/);
    expect(brotliDecompressSync(br.body).toString()).toBe(JS);
    expect(Number(br.headers["content-length"])).toBeLessThan(JS.length / 10);

    const gz = await get("/assets/app-Ab12Cd34.js", { "Accept-Encoding": "gzip" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gz.body).toString()).toBe(JS);

    // The client's preference wins over the server's order.
    const q = await get("/assets/app-Ab12Cd34.js", { "Accept-Encoding": "br;q=0.5, gzip;q=1" });
    expect(q.headers["content-encoding"]).toBe("gzip");

    const plain = await get("/assets/app-Ab12Cd34.js", { "Accept-Encoding": "identity" });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.toString()).toBe(JS);
    expect(plain.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
  });

  it("sends an asset kept only as Brotli as it is to a client that accepts br, decompressed to one that does not", async () => {
    const app = express().use(clientApp({ distDir: dir }));
    // The bytes as sent (supertest would decode br): the build's copy.
    const br = await get("/assets/lazy-Ef56Gh78.js", { "Accept-Encoding": "gzip, deflate, br" });
    expect(br.status).toBe(200);
    expect(br.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(br.body).toString()).toBe(LAZY);

    for (const acceptEncoding of ["identity", "gzip", ""]) {
      const plain = await request(app).get("/assets/lazy-Ef56Gh78.js").set("Accept-Encoding", acceptEncoding);
      expect(plain.status, acceptEncoding).toBe(200);
      expect(plain.headers["content-encoding"], acceptEncoding).toBeUndefined();
      expect(plain.headers["content-type"], acceptEncoding).toMatch(/^text\/javascript|^application\/javascript/);
      expect(plain.headers["cache-control"], acceptEncoding).toBe("public, max-age=31536000, immutable");
      expect(plain.headers.vary, acceptEncoding).toMatch(/Accept-Encoding/);
      expect(plain.text, acceptEncoding).toBe(LAZY);
    }
    const head = await request(app).head("/assets/lazy-Ef56Gh78.js").set("Accept-Encoding", "identity");
    expect(head.status).toBe(200);
    expect(head.headers["content-type"]).toMatch(/javascript/);
  });

  it("sends a file without compressed copies as it is, with its type", async () => {
    const res = await get("/assets/tiny-Zz99.css", { "Accept-Encoding": "br, gzip" });
    expect(res.status).toBe(200);
    expect(res.headers["content-encoding"]).toBeUndefined();
    expect(res.headers["content-type"]).toMatch(/^text\/css/);
    expect(res.body.toString()).toBe("body{margin:0}");
  });

  it("answers a page address with index.html, compressed, never cached without asking", async () => {
    for (const page of ["/", "/t/some-thread", "/demos/coding", "/v1", "/index.html"]) {
      const res = await get(page, { Accept: "text/html", "Accept-Encoding": "br" });
      expect(res.status, page).toBe(200);
      expect(res.headers["content-encoding"], page).toBe("br");
      expect(res.headers["content-type"], page).toMatch(/^text\/html/);
      expect(res.headers["cache-control"], page).toBe("no-cache");
      expect(brotliDecompressSync(res.body).toString(), page).toBe(HTML);
    }
  });

  it("serves nothing outside the build, no dotfile, and leaves /api to the API", async () => {
    // A dotfile is no file of the app: an address without an extension is a page, so index.html.
    const dot = await get("/.secret", { Accept: "text/html" });
    expect(dot.body.toString()).toBe(HTML);
    for (const p of ["/assets/..%2F.secret", "/assets/..%2F..%2Fetc%2Fpasswd", "/assets/missing-1234.js", "/assets/app-Ab12Cd34.js%00.br"]) {
      const res = await get(p);
      expect(res.status, p).toBe(404);
      expect(res.body.toString(), p).not.toContain("SECRET-TOKEN");
    }
    expect((await get("/api/threads", { Accept: "text/html" })).status).toBe(404);
  });
});
