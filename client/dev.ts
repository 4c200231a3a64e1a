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
const server = spawn(tsx, ["watch", "--clear-screen=false", "server/main.ts"], {
  cwd: ROOT,
  stdio: "inherit",
  env: { ...process.env, PORT: process.env.PORT ?? "3000" },
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
