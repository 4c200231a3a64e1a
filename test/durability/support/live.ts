/**
 * Driving threads the way a browser does: live runs by a real AG-UI client that keeps its
 * conversation between runs, and reloads (a connect with no cursor) applied by both client
 * versions, as a freshly loaded page would.
 */
import type { Message, Tool } from "@ag-ui/core";
import { expect } from "vitest";
import { CLIENT_VERSIONS, runClient, type BothOutcomes, type ClientOutcome, type ClientVersion } from "../../support/agui-clients.ts";
import type { Frame } from "./sse.ts";
import { connectUrl, runUrl } from "./threads.ts";

/** A conversation as one client holds it across runs. */
export class LiveClient {
  messages: Message[] = [];
  state: unknown = {};
  private turn = 0;

  constructor(
    readonly base: string,
    readonly version: ClientVersion,
    readonly threadId: string,
  ) {}

  /** Sends a user message as a new run and waits for its end (success or not). */
  async say(content: string, opts: { tools?: Tool[]; state?: unknown } = {}): Promise<ClientOutcome> {
    this.turn++;
    const runId = `${this.threadId}-run${this.turn}`;
    const user: Message = { id: `${this.threadId}-u${this.turn}`, role: "user", content };
    const out = await runClient(this.version, {
      url: runUrl(this.base),
      input: {
        threadId: this.threadId,
        runId,
        messages: [...this.messages, user],
        state: opts.state ?? this.state,
        ...(opts.tools && { tools: opts.tools }),
      },
    });
    this.messages = out.messages;
    this.state = out.state;
    return out;
  }

  runId(turn = this.turn): string {
    return `${this.threadId}-run${turn}`;
  }
}

/** A page reload by both client versions: connect with no cursor, starting from nothing. */
export async function reloadWithBoth(base: string, threadId: string): Promise<BothOutcomes> {
  const results = {} as BothOutcomes;
  for (const version of CLIENT_VERSIONS) {
    results[version] = await runClient(version, { url: connectUrl(base), input: { threadId } });
  }
  return results;
}

export function expectAccepted(outcomes: BothOutcomes): void {
  for (const v of CLIENT_VERSIONS) {
    expect(outcomes[v].error?.message, `@ag-ui/client ${v}`).toBeUndefined();
    expect(outcomes[v].failed, `@ag-ui/client ${v} failed`).toBe(false);
  }
}

/** Frames back to SSE text, byte for byte what the server sent (its encoder is JSON.stringify). */
export function toSse(frames: Frame[]): string {
  return frames.map((f) => `id: ${f.id}\ndata: ${JSON.stringify(f.event)}\n\n`).join("");
}
