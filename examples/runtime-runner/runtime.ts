import { createServer } from "node:http";
import { BuiltInAgent, CopilotRuntime, createCopilotRuntimeHandler } from "@copilotkit/runtime/v2";
import { createCopilotNodeHandler } from "@copilotkit/runtime/v2/node";
import { createThreadline } from "threadline";

// Your auth's: the tenant of a credential it verified (here, one API key per tenant). Never a
// tenant the request names in a header of its own: a client could name another's.
const TENANTS = new Map([["key-of-acme", "acme"], ["key-of-globex", "globex"]]);
const tenantOf = (authorization: string | null | undefined) => TENANTS.get(authorization?.replace(/^Bearer /, "") ?? "");

// The runtime's agents run through it, none of Threadline's own (their models and tools are not built).
// DATABASE_URL: the Postgres every instance shares.
const threadline = createThreadline({ agents: [] });
const runner = threadline.agentRunner({
  tenant: ({ headers }) => {
    const tenant = tenantOf(headers.authorization);
    if (tenant === undefined) throw new Error("unknown API key"); // the handler below lets none in
    return tenant;
  },
});
const runtime = new CopilotRuntime({
  agents: { assistant: new BuiltInAgent({ model: "openai/gpt-4o-mini" }) },
  runner,
});
const runtimeHandler = createCopilotRuntimeHandler({ runtime, basePath: "/api/copilotkit" });
// An unknown key is refused here. Known, the request is in scope: stop and isRunning, which the
// runtime calls without it, follow its tenant too.
const handler = async (request: Request) =>
  tenantOf(request.headers.get("authorization")) === undefined
    ? Response.json({ error: "unknown API key" }, { status: 401 })
    : runner.withRequest(request, () => runtimeHandler(request));

threadline.start().then(() => {
  const port = Number(process.env.PORT ?? 3000);
  createServer(createCopilotNodeHandler(handler)).listen(port, () => console.log(`Listening on http://localhost:${port}`));
});
