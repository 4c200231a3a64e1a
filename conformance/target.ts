/**
 * What the kit talks to: a URL, or an app driven in process the way supertest drives one (an
 * Express app or any request listener gets an http.Server of its own; a server that is not
 * listening is started), on an ephemeral port of 127.0.0.1 that the kit closes when it is done.
 * Rejected: asking the caller for a port, which every test would then have to find and free.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** An Express app is such a listener (its extra `next` parameter is optional). */
export type RequestListenerLike = (req: IncomingMessage, res: ServerResponse) => unknown;

export type AgUiTarget = string | URL | Server | RequestListenerLike;

export interface OpenTarget {
  /** Where relative paths resolve: the URL given, or http://127.0.0.1:<port>/ in process. */
  base: URL;
  close(): Promise<void>;
}

function isServer(t: unknown): t is Server {
  return typeof t === "object" && t !== null && typeof (t as Server).listen === "function" && typeof (t as Server).address === "function";
}

export async function openTarget(target: AgUiTarget): Promise<OpenTarget> {
  if (typeof target === "string" || target instanceof URL) return { base: new URL(target), close: async () => {} };
  const server = isServer(target) ? target : createServer(target as RequestListenerLike);
  const owned = !server.listening;
  if (owned) {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
  }
  const { port } = server.address() as AddressInfo;
  return {
    base: new URL(`http://127.0.0.1:${port}/`),
    async close() {
      if (!owned) return;
      // Keep-alive sockets of fetch would hold close() open until they time out.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface Endpoints {
  run: URL;
  /** `<agentPath>/connect`, only when agentPath is given: AG-UI names no connect route. */
  connect: URL | undefined;
  /** GET `<agentPath>`, only when agentPath is given. */
  agent: URL | undefined;
}

/**
 * `path` names the run endpoint; without it, `<agentPath>/run`; without either, the target
 * itself. The optional probes (connect, resume, capabilities) need `agentPath`: the kit does
 * not guess routes the protocol does not define.
 */
export function endpoints(base: URL, opts: { path?: string | undefined; agentPath?: string | undefined }): Endpoints {
  const agent = opts.agentPath !== undefined ? new URL(opts.agentPath.replace(/\/+$/, ""), base) : undefined;
  const under = (suffix: string) => (agent ? new URL(`${agent.pathname}/${suffix}${agent.search}`, agent) : undefined);
  const run = opts.path !== undefined ? new URL(opts.path, base) : (under("run") ?? base);
  return { run, connect: under("connect"), agent };
}
