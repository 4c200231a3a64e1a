/**
 * The demo model on an agent with memory (defineAgent({ memory: true }), docs/memory.md), keyed on
 * the recall tool being offered. "Remember that <fact>" calls remember (the key is the fact up to
 * its " is ", the value the whole fact); "forget <key>" calls forget; any other message asks
 * recall with the message's words, and the answer quotes what came back. So a fact told in one
 * thread is recalled in another of the same tenant, offline.
 */
import type { DemoFixture } from "../fixture.ts";
import { FORGET_TOOL, RECALL_TOOL, REMEMBER_TOOL } from "../../memory/tools.ts";
import { answeredCalls, endsWithUser, lastResultIs, lastUserText, offers, parseObject, toolCall } from "../request.ts";

/** Words of a question that name nothing to recall: left out of the query. */
const STOP = new Set(["what", "is", "my", "the", "a", "an", "do", "you", "remember", "recall", "about", "of", "me", "i", "tell", "your", "was", "are"]);

export function memoryFixtures(): DemoFixture[] {
  return [
    {
      match: { predicate: lastResultIs(REMEMBER_TOOL) },
      response: (req) => ({ content: `I'll remember that: ${String(answeredCalls(req).at(-1)!.args.value)}.` }),
    },
    {
      match: { predicate: lastResultIs(FORGET_TOOL) },
      response: (req) => {
        const call = answeredCalls(req).at(-1)!;
        return { content: parseObject(call.result).forgotten ? `Forgotten: ${String(call.args.key)}.` : `I had nothing under "${String(call.args.key)}".` };
      },
    },
    {
      match: { predicate: lastResultIs(RECALL_TOOL) },
      response: (req) => {
        const entries = (parseObject(answeredCalls(req).at(-1)!.result).entries ?? []) as { key: string; value: unknown }[];
        if (entries.length === 0) return { content: "I don't remember anything about that." };
        return { content: `I remember: ${entries.map((e) => (typeof e.value === "string" ? e.value : JSON.stringify(e.value))).join("; ")}.` };
      },
    },
    {
      match: { predicate: (req) => offers(req, RECALL_TOOL) && endsWithUser(req) },
      response: (req) => {
        const message = lastUserText(req).trim();
        const remember = /^remember (?:that )?(.+?)[.!]*$/i.exec(message);
        if (remember) {
          const fact = remember[1]!;
          const key = fact.split(/\s+is\s+/i)[0]!.slice(0, 100);
          return { toolCalls: [toolCall(req, 0, REMEMBER_TOOL, { key, value: fact })] };
        }
        const forget = /^forget (?:about )?(.+?)[.!]*$/i.exec(message);
        if (forget) return { toolCalls: [toolCall(req, 0, FORGET_TOOL, { key: forget[1]! })] };
        const words = message.toLowerCase().replace(/[^\p{L}\p{N}\s]/gu, " ").split(/\s+/).filter((w) => w && !STOP.has(w));
        return { toolCalls: [toolCall(req, 0, RECALL_TOOL, { query: words.join(" ") || message })] };
      },
    },
  ];
}
