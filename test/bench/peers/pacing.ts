/**
 * The one owner of what travels between a load driver and the fake upstream through the systems
 * under test: the pacing directive in the user message, and the write-time stamp in each token.
 */
export interface Pacing {
  tag: string;
  tokens: number;
  intervalMs: number;
}

/** The directive a driver puts in the user message; every system passes it to the upstream. */
export function benchPrompt(p: Pacing): string {
  return `BENCH tag=${p.tag} n=${p.tokens} t=${p.intervalMs}`;
}

export function parsePacing(text: string): Pacing | undefined {
  const m = /BENCH tag=(\S+) n=(\d+) t=(\d+)/.exec(text);
  return m ? { tag: m[1]!, tokens: Number(m[2]), intervalMs: Number(m[3]) } : undefined;
}

/** One token's content: its upstream write time, absolute ms with µs digits. */
export function stampToken(writtenAt: number): string {
  return ` ~${writtenAt.toFixed(3)}`;
}

/**
 * Write times found in a text delta. A global regex rather than one stamp per delta: a system
 * may merge several upstream tokens into one TEXT_MESSAGE_CONTENT, and each still counts.
 */
export function stampsIn(delta: string): number[] {
  const out: number[] = [];
  for (const m of delta.matchAll(/~(\d+\.\d+)/g)) out.push(Number(m[1]));
  return out;
}
