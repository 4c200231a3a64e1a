/**
 * The demo model on the coding agent: offered write, bash and edit, any message starts the
 * scripted session (write hello.py, run it, edit it, run it again, read it) and ends with a
 * summary that reports both runs' exit codes. Driven through the real openai SDK and wrapper
 * (demo-model.ts).
 */
import type { Message } from "@ag-ui/core";
import { describe, expect, it } from "vitest";
import { HELLO_EDIT, HELLO_PATH, HELLO_PY } from "../../server/demo/scripts/coding.ts";
import type { ModelTool } from "../../server/models/model.ts";
import { withDemoModel } from "./demo-model.ts";

const tool = (name: string): ModelTool => ({ name, description: name, inputSchema: { type: "object" } });
const CODING = ["read", "write", "edit", "bash", "grep", "find", "ls", "run"].map(tool);

const demoTurn = withDemoModel("You are a coding agent.");
const turn = (messages: Message[], tools = CODING) => demoTurn(messages, tools);

/** What the coding agent's tools answer, as the contract shapes them. */
function resultOf(name: string, n: number): string {
  if (name === "bash") return JSON.stringify({ exitCode: n === 0 ? 0 : 3, output: "Hello\n" });
  if (name === "read") return HELLO_PY;
  return JSON.stringify({ ok: true });
}

describe("demo model on the coding agent", () => {
  it("write, bash, edit, bash, read, then a summary with both exit codes", async () => {
    const messages: Message[] = [{ id: "u1", role: "user", content: "Show me what you can do" }];
    const seen: { name: string; args: Record<string, unknown>; text: string }[] = [];
    let bashRuns = 0;
    for (let i = 0; i < 5; i++) {
      const { text, calls } = await turn(messages);
      expect(calls).toHaveLength(1);
      const call = calls[0]!;
      seen.push({ name: call.name, args: call.args, text });
      messages.push({ id: `a${i}`, role: "assistant", content: text, toolCalls: [{ id: call.id, type: "function", function: { name: call.name, arguments: JSON.stringify(call.args) } }] });
      messages.push({ id: `t${i}`, role: "tool", toolCallId: call.id, content: resultOf(call.name, call.name === "bash" ? bashRuns++ : 0) });
    }
    expect(seen.map((s) => s.name)).toEqual(["write", "bash", "edit", "bash", "read"]);
    expect(seen[0]!.args).toEqual({ path: HELLO_PATH, content: HELLO_PY });
    expect(seen[1]!.args).toEqual({ command: "python3 hello.py" });
    expect(seen[2]!.args).toEqual({ path: HELLO_PATH, ...HELLO_EDIT });
    expect(HELLO_PY).toContain(HELLO_EDIT.old_string);
    expect(seen.every((s) => s.text.length > 0)).toBe(true);

    const { text, calls } = await turn(messages);
    expect(calls).toEqual([]);
    expect(text).toContain("(exit 0)");
    expect(text).toContain("(exit 3)");
  });

  it("answers only an agent that offers write, bash and edit: without edit no coding session starts, at most the one tool the message names", async () => {
    const { calls } = await turn([{ id: "u1", role: "user", content: "Write hello.py" }], CODING.filter((t) => t.name !== "edit"));
    expect(calls.map((c) => c.name)).not.toContain("bash");
    expect(calls.length).toBeLessThanOrEqual(1);
  });
});
