/**
 * The agent of the page's thread (the chrome's agentId), for the parts drawn inside the thread's
 * context: one call instead of each panel reading the chrome and asking CopilotKit for it itself.
 */
import { useAgent } from "@copilotkit/react-core/v2";
import { useThreadChrome } from "./chrome-context.ts";

export function useThreadAgent(): ReturnType<typeof useAgent>["agent"] {
  const { agentId } = useThreadChrome();
  return useAgent({ agentId }).agent;
}
