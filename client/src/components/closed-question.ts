/**
 * Whether a question card (an approval, a choice) is closed without an answer: the log says its
 * call was cancelled (a newer message came instead, or it expired) or never ran, other than
 * denied. Such a card
 * offers no buttons and says why: CopilotKit keeps a human-in-the-loop call "executing", with its
 * respond() armed, until a result comes, and a click there would send a second answer to a
 * question the log already closed.
 */
import { useThreadChrome } from "../chrome-context.ts";
import { CARD_REASON } from "../status.ts";

/** Why the question is closed, in words; undefined while it is open or was answered. */
export function useClosedQuestion(toolCallId: string | undefined): string | undefined {
  const call = useThreadChrome().detail?.toolCalls[toolCallId ?? ""];
  // A denial is an answer; any other end without one closes the question.
  const closed = call?.status === "cancelled" || (call?.status === "never_run" && call.reason !== "denied");
  if (!call || !closed) return undefined;
  return call.reason ? CARD_REASON[call.reason] : "closed without an answer";
}
