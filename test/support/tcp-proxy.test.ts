import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTcpProxy, type TcpProxy } from "./tcp-proxy.ts";

/** An echo server: the upstream the proxy stands in front of. */
let echo: net.Server;
let echoPort: number;
let proxy: TcpProxy;

beforeAll(async () => {
  echo = net.createServer((s) => {
    s.on("error", () => s.destroy());
    s.pipe(s);
  });
  await new Promise<void>((r) => echo.listen(0, "127.0.0.1", r));
  echoPort = (echo.address() as net.AddressInfo).port;
  proxy = await startTcpProxy({ host: "127.0.0.1", port: echoPort });
});

afterAll(async () => {
  await proxy.close();
  echo.close();
});

function connect(): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(proxy.port, "127.0.0.1", () => resolve(s));
    s.once("error", reject);
  });
}

function roundTrip(s: net.Socket, text: string): Promise<string> {
  return new Promise((resolve) => {
    s.once("data", (d: Buffer) => resolve(d.toString()));
    s.write(text);
  });
}

function closed(s: net.Socket): Promise<string | undefined> {
  return new Promise((resolve) => {
    let code: string | undefined;
    s.on("error", (e: NodeJS.ErrnoException) => (code = e.code));
    s.on("close", () => resolve(code));
  });
}

describe("tcp proxy", () => {
  it("passes, delays, resets, refuses, resets every connection and blackholes", async () => {
    const a = await connect();
    expect(await roundTrip(a, "hello")).toBe("hello");

    proxy.setDelay(20);
    expect(await roundTrip(a, "slow")).toBe("slow");
    proxy.setDelay(0);

    const gone = closed(a);
    proxy.reset();
    expect(await gone).toBe("ECONNRESET");

    await proxy.setMode("refuse");
    await expect(connect()).rejects.toMatchObject({ code: "ECONNREFUSED" });
    await proxy.setMode("pass");

    // Reset mode: an open connection is reset on entering it, and a new one once accepted.
    const open = await connect();
    const openGone = closed(open);
    await proxy.setMode("reset");
    expect(await openGone).toBe("ECONNRESET");
    // Reset during the handshake or just after it, as the scheduler has it: either way, a reset.
    expect(await closed(net.connect(proxy.port, "127.0.0.1"))).toBe("ECONNRESET");
    await proxy.setMode("pass");

    const b = await connect();
    expect(await roundTrip(b, "back")).toBe("back");

    await proxy.setMode("blackhole");
    // Nothing comes back: the echo is dropped. Probe: after the blackhole ends, the socket is
    // reset (its bytes were lost), and it never saw data meanwhile.
    let received = 0;
    b.on("data", () => received++);
    b.write("into the void");
    const c = await connect(); // new connections are accepted, and hear nothing either
    c.on("data", () => received++);
    c.write("also void");
    const bGone = closed(b);
    const cGone = closed(c);
    await proxy.setMode("pass");
    expect(await bGone).toBe("ECONNRESET");
    expect(await cGone).toBe("ECONNRESET");
    expect(received).toBe(0);
  });
});
