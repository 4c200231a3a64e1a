/**
 * The FastAPI agent of test/fixtures/conformance-servers/agent.py under `python3 -m uvicorn`, on
 * a port uvicorn picks (it prints the one it bound). Python, FastAPI and uvicorn come from the
 * machine (Debian's python3-fastapi, python3-uvicorn); without them the suite is skipped.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { pythonWithFastApi } from "../../support/python.ts";

const APP_DIR = fileURLToPath(new URL("../../fixtures/conformance-servers", import.meta.url));
/** Start-up on a loaded 2-core machine: the interpreter, FastAPI's imports, the bind. */
const START_BOUND_MS = 60_000;

/** Undefined when a python3 can import fastapi and uvicorn; else why not (support/python.ts). */
export function pythonMissing(): string | undefined {
  return pythonWithFastApi().missing;
}

export interface PythonAgent {
  /** The run endpoint; add `?fault=<name>` for a faulty variant. */
  url: string;
  close(): Promise<void>;
}

export async function startPythonAgent(): Promise<PythonAgent> {
  const { python, missing } = pythonWithFastApi();
  if (!python) throw new Error(missing);
  const child: ChildProcess = spawn(python, ["-m", "uvicorn", "agent:app", "--app-dir", APP_DIR, "--host", "127.0.0.1", "--port", "0"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`uvicorn did not report its port within ${START_BOUND_MS} ms:\n${log}`)), START_BOUND_MS);
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (text: string) => {
      log += text;
      const m = /Uvicorn running on http:\/\/127\.0\.0\.1:(\d+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`uvicorn exited (${code}) before listening:\n${log}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}/agent`,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
