/**
 * Whether CopilotKit's runtime has answered its `/info`: until then `useAgent` hands out a
 * provisional agent, and a chat that connects it makes that agent ask `/info` once more for
 * itself (two `/info` per load, seen in the request count of test/browser/load.test.ts). The
 * chat is drawn once the runtime is connected, so its connect goes through the agent the runtime
 * listed. Rejected: `useSingleEndpoint={false}`, which still leaves the provisional agent
 * "pending" and asking.
 */
import { CopilotKitCoreRuntimeConnectionStatus, useCopilotKit } from "@copilotkit/react-core/v2";
import { useEffect, useState } from "react";

export type RuntimeStatus = "connecting" | "connected" | "error";

export function useRuntimeStatus(): RuntimeStatus {
  const { copilotkit } = useCopilotKit();
  const read = (): RuntimeStatus => {
    const s = copilotkit.runtimeConnectionStatus;
    if (s === CopilotKitCoreRuntimeConnectionStatus.Connected) return "connected";
    return s === CopilotKitCoreRuntimeConnectionStatus.Error ? "error" : "connecting";
  };
  const [status, setStatus] = useState(read);
  useEffect(() => {
    setStatus(read());
    const sub = copilotkit.subscribe({ onRuntimeConnectionStatusChanged: () => setStatus(read()) });
    return () => sub.unsubscribe();
  }, [copilotkit]);
  return status;
}
