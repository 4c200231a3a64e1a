import express from "express";
import { createThreadline, defineAgent } from "threadline";

const threadline = createThreadline({
  agents: [defineAgent({ id: "assistant", description: "A helpful assistant", instructions: "You are helpful." })],
});

const app = express();
app.use("/copilotkit", threadline.copilotkit()); // GET /copilotkit/info, POST /copilotkit/agent/assistant/run, …
app.use("/ai", threadline.router());
threadline.start().then(() => {
  const port = Number(process.env.PORT ?? 3000);
  app.listen(port, () => console.log(`Listening on http://localhost:${port}`));
});
