/**
 * The Threadline web app. `npm run build:client` builds it into dist/client, which the server
 * serves at `/`; `npm run dev` serves it from Vite with /api proxied to the server.
 */
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { katexWoff2Only } from "./katex-woff2-only.ts";
import { markdownShims } from "./markdown-shims.ts";
import { precompress } from "./precompress.ts";

const api = process.env.THREADLINE_API_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}`;

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react(), markdownShims(import.meta.dirname), katexWoff2Only(), precompress()],
  build: {
    // Under the package's dist/, next to the compiled server, so `files: ["dist"]` ships it.
    outDir: "../dist/client",
    emptyOutDir: true,
    // CopilotKit's entry chunk is ~1.3 MB minified (zod, react-dom, CopilotKit); the first load is
    // bounded by test/browser/weight.test.ts on what is sent (compressed), not here.
    chunkSizeWarningLimit: 2048,
  },
  server: {
    port: Number(process.env.VITE_PORT ?? 5173),
    proxy: {
      "/api": {
        target: api,
        // SSE must pass through as it comes: no timeout, and tell any proxy in front not to buffer.
        timeout: 0,
        proxyTimeout: 0,
        configure(proxy) {
          proxy.on("proxyRes", (proxyRes, _req, res) => {
            if (!String(proxyRes.headers["content-type"] ?? "").startsWith("text/event-stream")) return;
            proxyRes.headers["x-accel-buffering"] = "no";
            proxyRes.headers["cache-control"] = "no-cache, no-transform";
            // Send the headers now, not with the first event: a quiet stream is still open.
            setImmediate(() => {
              if ("flushHeaders" in res && !res.headersSent) res.flushHeaders();
            });
          });
        },
      },
      "/healthz": api,
    },
  },
});
