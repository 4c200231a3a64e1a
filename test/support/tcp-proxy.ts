/**
 * A real TCP proxy on 127.0.0.1 for fault tests: the server under test connects through it to
 * Postgres, and the test decides what the network does.
 *
 *   pass       forward both ways (optionally delaying every chunk, or one chosen chunk)
 *   reset()    reset every open connection (RST), then go on in the current mode
 *   refuse     close the listening socket: new connections get ECONNREFUSED
 *   reset      reset every open connection, and every new one as soon as it is accepted (RST):
 *              a database that keeps dropping connections (a crash loop, a proxy in front of it)
 *   blackhole  keep every socket open and forward nothing, either way, new connections included
 *              (a failover, a dead NAT: packets dropped, no reset)
 *
 * In blackhole mode a side that closes its socket is not told to the other side either: the
 * database must find out by its own timeouts, as it would on a real silent network.
 */
import net from "node:net";

export type ProxyMode = "pass" | "refuse" | "reset" | "blackhole";

interface Pair {
  client: net.Socket;
  upstream: net.Socket;
}

export interface TcpProxy {
  readonly port: number;
  /** `target` (postgres://…) with its host and port replaced by the proxy's */
  url(target: string): string;
  mode(): ProxyMode;
  setMode(mode: ProxyMode): Promise<void>;
  /** delay applied to every forwarded chunk in pass mode (0: none) */
  setDelay(ms: number): void;
  /**
   * Turns to blackhole the moment a chunk from a client matches (that chunk is dropped too, or,
   * when `match` answers a number, all of it but that many first bytes): a fault at an exact
   * point of the protocol, say the COMMIT of a transaction. Resolves then.
   */
  blackholeOn(match: (chunk: Buffer) => boolean | number): Promise<void>;
  /**
   * Delays the first chunk from a client that matches by `ms` (in pass mode), and only that one:
   * a database slow to answer one chosen statement. Resolves when the chunk is forwarded.
   */
  delayOnce(match: (chunk: Buffer) => boolean, ms: number): Promise<void>;
  /** RST on both sides of every open connection */
  reset(): void;
  /** connections accepted so far */
  readonly accepted: number;
  /** connections currently open */
  readonly open: number;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let mode: ProxyMode = "pass";
  let delayMs = 0;
  let accepted = 0;
  let port = 0;

  let trigger: { match: (chunk: Buffer) => boolean | number; fired: () => void } | undefined;
  let slow: { match: (chunk: Buffer) => boolean; ms: number; forwarded: () => void } | undefined;

  const forward = (from: net.Socket, to: net.Socket, fromClient: boolean) => {
    from.on("data", (chunk: Buffer) => {
      const hit = fromClient ? trigger?.match(chunk) : false;
      if (hit !== undefined && hit !== false) {
        // A number: that many bytes of the chunk still pass, then nothing does.
        if (typeof hit === "number" && hit > 0) to.write(chunk.subarray(0, hit));
        mode = "blackhole";
        trigger!.fired();
        trigger = undefined;
      }
      if (mode === "blackhole") return; // dropped
      const once = fromClient && slow?.match(chunk) ? slow : undefined;
      if (once) slow = undefined;
      const wait = once ? once.ms : delayMs;
      if (wait === 0) {
        to.write(chunk);
        return;
      }
      // Delay without reordering: pause the source until this chunk is written.
      from.pause();
      setTimeout(() => {
        if (mode !== "blackhole" && !to.destroyed) to.write(chunk);
        from.resume();
        once?.forwarded();
      }, wait);
    });
    from.on("close", () => {
      if (mode !== "blackhole") to.destroy();
    });
    from.on("error", () => {
      // The pair is torn down by "close"; the error itself is the fault under test.
    });
  };

  const onConnection = (client: net.Socket) => {
    accepted++;
    if (mode === "reset") {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    const pair = { client, upstream };
    pairs.add(pair);
    const forget = () => {
      if (client.destroyed && upstream.destroyed) pairs.delete(pair);
    };
    client.on("close", forget);
    upstream.on("close", forget);
    forward(client, upstream, true);
    forward(upstream, client, false);
  };

  // One net.Server per listening period: a closed server finishes closing only when its
  // connections end, and those are the ones a "refuse" outage keeps.
  let server: net.Server | undefined;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = net.createServer(onConnection);
      s.once("error", reject);
      s.listen(port, "127.0.0.1", () => {
        s.off("error", reject);
        port = (s.address() as net.AddressInfo).port;
        server = s;
        resolve();
      });
    });
  const stopListening = () => {
    server?.close();
    server = undefined;
  };

  const reset = () => {
    for (const { client, upstream } of pairs) {
      if (!client.destroyed) client.resetAndDestroy();
      if (!upstream.destroyed) upstream.resetAndDestroy();
    }
    pairs.clear();
  };

  await listen();

  return {
    get port() {
      return port;
    },
    get accepted() {
      return accepted;
    },
    get open() {
      return pairs.size;
    },
    url(targetUrl) {
      const u = new URL(targetUrl);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.toString();
    },
    mode: () => mode,
    async setMode(next) {
      if (next === mode) return;
      const wasListening = mode !== "refuse";
      // Bytes dropped in a blackhole are gone: the connections that lived through it are broken
      // at the protocol level, so they end (as they would when the network came back).
      if (mode === "blackhole") reset();
      mode = next;
      if (next === "reset") reset();
      if (next === "refuse" && wasListening) stopListening();
      if (next !== "refuse" && !wasListening) await listen();
    },
    blackholeOn(match) {
      return new Promise<void>((fired) => {
        trigger = { match, fired };
      });
    },
    delayOnce(match, ms) {
      return new Promise<void>((forwarded) => {
        slow = { match, ms, forwarded };
      });
    },
    setDelay(ms) {
      delayMs = ms;
    },
    reset,
    async close() {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
      stopListening();
    },
  };
}
