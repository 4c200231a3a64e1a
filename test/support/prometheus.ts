/** Reading Prometheus' text format in tests: every sample with its labels, and one value by name and labels. */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = LINE.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(LABEL)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, "$1");
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/** The sample of `name` with exactly these labels; undefined when there is none. */
export function sampleOf(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const want = Object.entries(labels);
  const found = samples.find(
    (s) => s.name === name && Object.keys(s.labels).length === want.length && want.every(([k, v]) => s.labels[k] === v),
  );
  return found?.value;
}

/** GET <url>/metrics, parsed. */
export async function scrape(url: string): Promise<Sample[]> {
  const res = await fetch(`${url}/metrics`);
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  return parseMetrics(await res.text());
}
