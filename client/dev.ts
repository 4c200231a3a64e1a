/**
 * `npm run dev`: the server (tsx watch, restarted on change) on PORT (default 3000) and the Vite
 * dev server (hot reload) on VITE_PORT (default 5173), whose /api is proxied to the server.
 * One command, one Ctrl-C.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createServer } from "vite";

const CLIENT = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(CLIENT);

const tsx = path.join(ROOT, "node_modules", ".bin", process.platform === "win32" ? "tsx.cmd" : "tsx");
// The pages come from Vite's port, and the server checks a browser's Origin against its own
// address and ALLOWED_ORIGINS (never the proxied Host header): Vite's origins are allowed here.
const vitePort = process.env.VITE_PORT ?? "5173";
const allowedOrigins = [process.env.ALLOWED_ORIGINS, `http://localhost:${vitePort}`, `http://127.0.0.1:${vitePort}`].filter(Boolean).join(",");
const server = spawn(tsx, ["watch", "--clear-screen=false", "server/main.ts"], {
  cwd: ROOT,
  stdio: "inherit",
  env: { ...process.env, PORT: process.env.PORT ?? "3000", ALLOWED_ORIGINS: allowedOrigins },
});

const vite = await createServer({ configFile: path.join(CLIENT, "vite.config.ts") });
await vite.listen();
vite.printUrls();

let stopping = false;
const stop = async (code = 0) => {
  if (stopping) return;
  stopping = true;
  server.kill("SIGTERM");
  await vite.close();
  process.exit(code);
};
server.on("exit", (code) => {
  if (!stopping) {
    console.error(`dev: the server exited (${code ?? "signal"}); stopping Vite too.`);
    void stop(code ?? 1);
  }
});
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
