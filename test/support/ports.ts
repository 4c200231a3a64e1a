/**
 * A loopback port nothing listens on now: bound on 127.0.0.1, then closed. For a server that
 * must be given its port (another process's PORT, a Python app's AGENT_PORT), or for a connect
 * that must be refused. Another process may take it in between; the tests that use it accept that.
 */
import { createServer } from "node:net";

export async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
