/**
 * The Python that runs the tests' foreign AG-UI servers: the first of `python3` on PATH and
 * Debian's own `/usr/bin/python3` that imports fastapi and uvicorn (what `.ci/run` installs from
 * Debian's packages). Rejected: `python3` alone, which on a machine with pyenv is pyenv's
 * interpreter, without Debian's packages, and silently skipped every test that needs one.
 */
import { spawn, spawnSync } from "node:child_process";
import { unusedPort } from "./ports.ts";

const CANDIDATES = ["python3", "/usr/bin/python3"];

export type PythonProbe = { python: string; missing?: undefined } | { python?: undefined; missing: string };

let probed: PythonProbe | undefined;

export function pythonWithFastApi(): PythonProbe {
  probed ??= probe();
  return probed;
}

function probe(): PythonProbe {
  const reasons: string[] = [];
  for (const python of CANDIDATES) {
    const run = spawnSync(python, ["-c", "import fastapi, uvicorn"], { encoding: "utf8" });
    if (run.error) reasons.push(`${python} is not runnable (${run.error.message})`);
    else if (run.status !== 0) reasons.push(`${python} cannot import fastapi and uvicorn: ${run.stderr.trim().split("\n").at(-1)}`);
    else return { python };
  }
  return { missing: `${reasons.join("; ")} (install Debian's python3-fastapi and python3-uvicorn)` };
}

/**
 * A FastAPI app file run with uvicorn on a free port (its AGENT_PORT), from `cwd`; resolves once
 * uvicorn says it serves there. `url`: its /agent endpoint.
 */
export async function startUvicornApp(file: string, cwd: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const { python, missing } = pythonWithFastApi();
  if (!python) throw new Error(missing);
  const port = await unusedPort();
  const child = spawn(python, [file], { cwd, env: { ...process.env, AGENT_PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  await new Promise<void>((resolve, reject) => {
    const onData = (c: Buffer) => {
      output += c.toString();
      if (output.includes(`Uvicorn running on http://127.0.0.1:${port}`)) resolve();
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    void exited.then((code) => reject(new Error(`python3 ${file} exited with ${code} before serving:\n${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/agent`,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
    },
  };
}
