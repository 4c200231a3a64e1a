/**
 * The Threadline web app. `npm run build:client` builds it into dist/client, which the server
 * serves at `/`; `npm run dev` serves it from Vite with /api proxied to the server.
 */
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

const api = process.env.THREADLINE_API_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}`;

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: {
    // Under the package's dist/, next to the compiled server, so `files: ["dist"]` ships it.
    outDir: "../dist/client",
    emptyOutDir: true,
    // CopilotKit's entry chunk is ~2.5 MB minified (streamdown, shiki grammars load lazily).
    chunkSizeWarningLimit: 4096,
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
