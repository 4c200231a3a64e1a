/**
 * A client that follows one run to its terminal frame across instances that go away under it,
 * as a browser would in a rolling restart: it starts the run (or connects to it) on one
 * instance and, whenever its stream ends without a terminal frame, reconnects with the id of the
 * last frame it got to any instance alive.
 */
import { connect, isContent, isTerminal, postRun } from "./multiprocess-kit.ts";
import type { ServerProcess } from "./server-process.ts";
import type { SseFrame, SseStream } from "./sse-client.ts";

export interface Follower {
  /** Every frame it got, over all its connections, once it got a terminal frame. */
  frames: Promise<SseFrame[]>;
  /** Resolves once its first connection carried text (the run is streaming). */
  firstWords: Promise<void>;
  ended(): boolean;
  reconnects(): number;
}

export function followToEnd(opts: {
  threadId: string;
  first: ServerProcess;
  /** The instances alive now: where it reconnects. */
  servers: () => ServerProcess[];
  how?: "run" | "connect";
  agent?: string;
  text?: string;
}): Follower {
  const { threadId, first, servers, how = "run", agent = "default", text = "stream" } = opts;
  const got: SseFrame[] = [];
  let done = false;
  let reconnects = 0;
  let streaming!: () => void;
  const firstWords = new Promise<void>((resolve) => (streaming = resolve));
  const frames = (async () => {
    let stream: SseStream | undefined =
      how === "run" ? await postRun(first, agent, { threadId, runId: "r1", text }) : await connect(first, agent, threadId, "0");
    void stream.waitFor(isContent).then(streaming, streaming);
    try {
      for (let attempt = 0; attempt < 20; attempt++) {
        if (stream) {
          const s = stream;
          got.push(...(await s.done.catch(() => s.frames)));
          stream = undefined;
        }
        if (got.some(isTerminal)) return got;
        const live = servers();
        reconnects++;
        // A refused connect (the instance was going down as it was picked) is tried elsewhere.
        stream = await connect(live[attempt % live.length]!, agent, threadId, got.at(-1)?.id ?? "0").catch(() => undefined);
      }
      throw new Error(`no terminal frame for ${threadId} after 20 reconnects`);
    } finally {
      done = true;
    }
  })();
  return { frames, firstWords, ended: () => done, reconnects: () => reconnects };
}

/** The text a client assembled from every TEXT_MESSAGE_CONTENT it got, in order. */
export function assembledText(frames: SseFrame[]): string {
  return frames.filter(isContent).map((f) => f.event.delta as string).join("");
}
