/**
 * The demo model and an application's own tools: a message that shares a word with a tool the
 * request offers (its name's parts or its description's words, four letters or more) calls that
 * tool, its arguments filled from the tool's schema with the message's subject (a number, a
 * quoted text, else the message); the result is then read back. So the README's `support` agent,
 * asked "Where is order 1042?", calls its `lookup_order` with `{ orderId: "1042" }`. Rejected:
 * the demo's own tools only, which answered that agent with its generic text and, asked about the
 * weather, called a `get_weather` the agent does not have.
 */
import type { DemoChatRequest, DemoFixture } from "./fixture.ts";
import { answeredCalls, lastRole, lastUserText, toolCall } from "./request.ts";
import { argsFor } from "./schema-args.ts";

/** Words that say nothing about a tool: a match on them would call tools at random. */
const STOP = new Set(["with", "from", "that", "this", "what", "when", "where", "which", "your", "tool", "tools", "given", "into", "about", "find", "list", "make", "does"]);

function words(text: string): Set<string> {
  return new Set(text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 4 && !STOP.has(w)));
}

/** The message without its [tags]: a tag says who sent it (the conformance kit's), not what is asked. */
const untagged = (message: string) => message.replace(/\[[^\]]*\]/g, " ");

/** The offered tool that shares the most words with the last user message (the first on a tie). */
export function ownToolFor(req: DemoChatRequest, exclude: ReadonlySet<string>): string | undefined {
  const said = words(untagged(lastUserText(req)));
  let best: { name: string; score: number } | undefined;
  for (const { function: f } of req.tools ?? []) {
    if (exclude.has(f.name)) continue;
    const about = words(`${f.name.replaceAll("_", " ")} ${f.description ?? ""}`);
    const score = [...about].filter((w) => said.has(w) || said.has(`${w}s`) || (w.endsWith("s") && said.has(w.slice(0, -1)))).length;
    if (score > 0 && (!best || score > best.score)) best = { name: f.name, score };
  }
  return best?.name;
}

/** What a call is about: the message's first file name, number or quoted text, else the message. */
function subjectOf(message: string): string {
  return (
    /[\w./-]+\.[A-Za-z]\w{0,4}\b/.exec(message)?.[0] ??
    /\b\d[\d-]*\b/.exec(message)?.[0] ??
    /["“']([^"”']+)["”']/.exec(message)?.[1] ??
    message.replace(/[.!?]+$/, "")
  );
}

/** The call, and the answer to its result; `exclude`: the tools the demo's own script owns. */
export function ownToolFixtures(exclude: ReadonlySet<string>): DemoFixture[] {
  return [
    {
      match: {
        predicate: (req) => {
          if (lastRole(req) !== "tool") return false;
          const last = answeredCalls(req).at(-1);
          return last !== undefined && last.name === ownToolFor(req, exclude);
        },
      },
      response: (req) => {
        const call = answeredCalls(req).at(-1)!;
        const result = call.result.length > 600 ? `${call.result.slice(0, 600)}…` : call.result;
        return { content: `I asked \`${call.name}\`, and it answered:\n\n\`\`\`json\n${result}\n\`\`\`\n\n(I am the built-in demo model: a real model would put that in its own words.)` };
      },
    },
    {
      match: { predicate: (req) => lastRole(req) === "user" && ownToolFor(req, exclude) !== undefined },
      response: (req) => {
        const name = ownToolFor(req, exclude)!;
        const message = lastUserText(req);
        return { toolCalls: [toolCall(req, 0, name, argsFor(req, name, {}, subjectOf(message)))] };
      },
    },
  ];
}
