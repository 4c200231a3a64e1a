/**
 * The Python that runs the tests' foreign AG-UI servers: the first of `python3` on PATH and
 * Debian's own `/usr/bin/python3` that imports fastapi and uvicorn (what `.ci/run` installs from
 * Debian's packages). Rejected: `python3` alone, which on a machine with pyenv is pyenv's
 * interpreter, without Debian's packages, and silently skipped every test that needs one.
 */
import { spawnSync } from "node:child_process";

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
