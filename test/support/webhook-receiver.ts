/**
 * A webhook receiver on loopback for tests: records every POST (headers, body, when), answers
 * each with the status the test's `answer` gives (default 200), and can hold a request unanswered
 * until released (to kill the sender while its attempt is in flight).
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedHook {
  n: number;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface WebhookReceiver {
  /** http://127.0.0.1:<port> */
  url: string;
  received: ReceivedHook[];
  /** The status each request gets (or "hold": no answer until release()); default 200. */
  answer: (hook: ReceivedHook) => number | "hold";
  /** Resolves with the n-th request (0-based) when it has arrived. */
  request(n: number): Promise<ReceivedHook>;
  /** Answers every held request with `status`. */
  release(status?: number): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedHook[] = [];
  const waiters = new Map<number, (h: ReceivedHook) => void>();
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", () => {
      const hook: ReceivedHook = { n: received.length, path: req.url ?? "", headers: req.headers, body: Buffer.concat(parts).toString("utf8"), at: Date.now() };
      received.push(hook);
      const status = receiver.answer(hook);
      if (status === "hold") held.push(res);
      else res.writeHead(status, { "content-type": "text/plain" }).end(status >= 400 ? "receiver says no" : "ok");
      waiters.get(hook.n)?.(hook);
      waiters.delete(hook.n);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    answer: () => 200,
    request(n) {
      const hit = received[n];
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve) => waiters.set(n, resolve));
    },
    release(status = 200) {
      for (const res of held.splice(0)) if (!res.destroyed) res.writeHead(status).end();
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}
