/**
 * A loopback HTTP proxy between the server and aimock that records, in one shared timeline, the
 * moment each upstream response ends. Tests append their own marks to the same timeline, so
 * "did the client see X before the upstream finished?" is a question of order, not of clocks.
 */
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";

export interface TimelineMark {
  what: string;
  /** Position in the timeline: the order in which this process observed the marks. */
  at: number;
}

export interface UpstreamRecorder {
  /** The /v1 base URL to give the server instead of aimock's. */
  url: string;
  timeline: TimelineMark[];
  /** Appends a mark and returns it. */
  mark(what: string): TimelineMark;
  /** Upstream responses still streaming. */
  inFlight(): number;
  close(): Promise<void>;
}

export async function startUpstreamRecorder(targetV1: string): Promise<UpstreamRecorder> {
  const target = new URL(targetV1);
  const timeline: TimelineMark[] = [];
  let open = 0;
  let n = 0;
  const mark = (what: string) => {
    const m = { what, at: timeline.length };
    timeline.push(m);
    return m;
  };
  const server = createServer((req, res) => {
    const id = ++n;
    open++;
    let settled = false;
    const done = (what: string) => {
      if (settled) return;
      settled = true;
      open--;
      mark(`upstream-${what}:${id}`);
    };
    mark(`upstream-request:${id}`);
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
        up.on("end", () => done("end"));
        up.on("error", () => {
          done("error");
          res.destroy();
        });
        up.on("close", () => {
          if (!up.complete) {
            done("cut");
            res.destroy();
          }
        });
      },
    );
    upstream.on("error", () => {
      done("error");
      res.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${target.pathname.replace(/\/$/, "")}`,
    timeline,
    mark,
    inFlight: () => open,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
