/**
 * A loopback HTTP proxy between the server and aimock that can stop an upstream response in the
 * middle: armed with `holdAfter(n)`, the next response is forwarded up to its n-th SSE event and
 * then held until `release()`. A test thus knows the model is mid-answer (mid tool-call arguments)
 * for as long as it needs, without sleeping or racing aimock's per-chunk latency.
 */
import { createServer, request as httpRequest, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { parseSseBlock, SseSplitter, sseData } from "../../../protocol/sse-read.ts";

export interface HeldUpstream {
  /** The /v1 base URL to give the server instead of aimock's. */
  url: string;
  /** Holds the next response after its `events`-th SSE event. */
  holdAfter(events: number): void;
  /** Resolves with the SSE events forwarded (their JSON) once the armed response is held. */
  held(): Promise<unknown[]>;
  /** Lets the held response go on. */
  release(): void;
  close(): Promise<void>;
}

export async function startHeldUpstream(targetV1: string): Promise<HeldUpstream> {
  const target = new URL(targetV1);
  let armed: number | undefined;
  let onHeld: (events: unknown[]) => void = () => {};
  let heldPromise: Promise<unknown[]> = new Promise((resolve) => (onHeld = resolve));
  let releaseHeld: () => void = () => {};

  const holdResponse = (up: NodeJS.ReadableStream, res: ServerResponse, after: number) => {
    const splitter = new SseSplitter();
    let holding = false;
    const forwarded: unknown[] = [];
    const pending: string[] = [];
    let ended = false;
    const send = (block: string) => {
      if (holding) pending.push(block);
      else res.write(block);
    };
    up.setEncoding("utf8");
    up.on("data", (chunk: string) => {
      for (const raw of splitter.push(chunk)) {
        send(`${raw}\n\n`);
        if (holding) continue;
        const data = sseData(parseSseBlock(raw));
        if (data !== undefined && data !== "[DONE]") forwarded.push(JSON.parse(data));
        if (forwarded.length === after) {
          holding = true;
          releaseHeld = () => {
            holding = false;
            for (const b of pending.splice(0)) res.write(b);
            if (ended) res.end();
          };
          onHeld(forwarded);
        }
      }
    });
    up.on("end", () => {
      ended = true;
      if (splitter.trailing) send(splitter.trailing);
      if (!holding) res.end();
    });
  };

  const server = createServer((req, res) => {
    const after = armed;
    armed = undefined;
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        if (after === undefined) up.pipe(res);
        else holdResponse(up, res, after);
        up.on("error", () => res.destroy());
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${target.pathname.replace(/\/$/, "")}`,
    holdAfter(events) {
      armed = events;
      heldPromise = new Promise((resolve) => (onHeld = resolve));
    },
    held: () => heldPromise,
    release: () => releaseHeld(),
    close: () =>
      new Promise<void>((resolve) => {
        releaseHeld();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
