/**
 * The demo model on the coding agent (recognised by the tools only it is offered: write, bash
 * and edit). Any message starts the same short session, one tool call per turn: write hello.py,
 * run it, edit its greeting, run it again, read it back; then a summary of what happened. The
 * next step is the number of tool results since the user's message, so a reload or a re-issued
 * request resumes the session where it is.
 */
import type { DemoChatRequest, DemoFixture } from "../fixture.ts";
import { answeredCalls, endsWithUser, lastRole, offers, parseObject, toolCall, type AnsweredCall } from "../request.ts";

const CODING_TOOLS = ["write", "bash", "edit"] as const;

export const HELLO_PATH = "hello.py";

/** Coloured, on both streams, and slow enough (about 2.5 s) that its output is seen arriving. */
export const HELLO_PY = [
  "import sys",
  "import time",
  "",
  'GREEN, BOLD, RESET = "\\033[32m", "\\033[1m", "\\033[0m"',
  "",
  "",
  "def greet(name):",
  '    return f"{BOLD}{GREEN}Hello, {name}!{RESET}"',
  "",
  "",
  'print(greet("world"), flush=True)',
  "for step in range(1, 6):",
  '    print(f"step {step}/5", flush=True)',
  "    time.sleep(0.5)",
  'print("done (this line is on stderr)", file=sys.stderr, flush=True)',
  "",
].join("\n");

export const HELLO_EDIT = { old_string: 'greet("world")', new_string: 'greet("Threadline")' };

const RUN = "python3 hello.py";

interface Step {
  say: string;
  tool: string;
  args: Record<string, unknown>;
}

const STEPS: readonly Step[] = [
  { say: `I'll write ${HELLO_PATH} in the workspace.`, tool: "write", args: { path: HELLO_PATH, content: HELLO_PY } },
  { say: "Now let's run it.", tool: "bash", args: { command: RUN } },
  { say: "It works. Let me change the greeting.", tool: "edit", args: { path: HELLO_PATH, ...HELLO_EDIT } },
  { say: "And run it again.", tool: "bash", args: { command: RUN } },
  { say: "Finally, let me read the file back.", tool: "read", args: { path: HELLO_PATH } },
];

function offersCoding(req: DemoChatRequest): boolean {
  return CODING_TOOLS.every((t) => offers(req, t));
}

function exitOf(call: AnsweredCall): string {
  const r = parseObject(call.result);
  if (r.timedOut === true) return "timed out";
  return typeof r.exitCode === "number" ? `exit ${r.exitCode}` : "no exit code";
}

function summary(req: DemoChatRequest): string {
  const runs = answeredCalls(req).filter((c) => c.name === "bash").map(exitOf);
  return (
    `Done. I wrote ${HELLO_PATH}, ran it (${runs[0] ?? "not run"}), changed its greeting to "Threadline" and ran it ` +
    `again (${runs[1] ?? "not run"}). The file is in the workspace panel. (This is Threadline's offline demo model; ` +
    "set OPENAI_API_KEY for a real one.)"
  );
}

export function codingFixtures(): DemoFixture[] {
  return [
    {
      match: { predicate: (req) => offersCoding(req) && (endsWithUser(req) || lastRole(req) === "tool") },
      response: (req) => {
        const step = STEPS[answeredCalls(req).length];
        if (!step) return { content: summary(req) };
        return { content: step.say, toolCalls: [toolCall(req, 0, step.tool, step.args)] };
      },
    },
  ];
}
