import { createThreadline, remoteAgent } from "threadline";

const research = remoteAgent({
  id: "research", // the agent id clients use: /api/agents/research/run
  url: process.env.RESEARCH_URL ?? "http://127.0.0.1:8000/agent", // the remote's AG-UI endpoint (http or https)
  headers: { authorization: `Bearer ${process.env.RESEARCH_KEY ?? ""}` }, // sent with every run, never logged
  description: "Answers research questions",
  timeouts: { connectMs: 30_000, readMs: 120_000 }, // the defaults; 1 ms to 1 hour each
});

// The standalone server (PORT, default 3000) with this one agent. No top-level await: this also runs as CommonJS.
createThreadline({ agents: [research] })
  .listen()
  .then((port) => console.log(`Listening on http://localhost:${port}`));
