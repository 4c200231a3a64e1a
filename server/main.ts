/** `npm start`: the server with the configuration from the environment. */
import { createThreadline } from "./threadline.ts";

const threadline = await createThreadline();
const port = await threadline.listen();
threadline.logger.info({ port }, `Threadline listening on http://localhost:${port}`);

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    stopping = true;
    threadline.logger.info({ signal }, "shutting down; active runs are left to recovery");
    void threadline.close().then(() => process.exit(0));
  });
}
