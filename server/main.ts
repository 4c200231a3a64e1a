/** `npm start`: the standalone server, configured by the environment, on the library's API. */
import { createThreadline } from "./threadline.ts";

const threadline = createThreadline();
const port = await threadline.listen();
threadline.logger.info({ port }, `Threadline listening on http://localhost:${port}`);

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    // A second signal does not wait for the drain: leases left behind expire and recovery takes them.
    if (stopping) process.exit(1);
    stopping = true;
    threadline.logger.info({ signal }, "shutting down: new runs are refused, active runs finish or move to another instance");
    void threadline.close().then(
      () => process.exit(0),
      (err: unknown) => {
        threadline.logger.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  });
}
