/**
 * The conversations the projection is checked against, each with what BOTH real clients must
 * hold after the whole projected stream (starting from an empty agent): messages and state.
 */
import type { Message } from "@ag-ui/core";
import { assistantMessage, Log, toolMessage, user } from "./log.ts";

export interface Scenario {
  name: string;
  log: Log;
  messages: Message[];
  state: unknown;
  /** Every streamed message is also appended durably, so a compacted log replays the same. */
  compactable: boolean;
}

const weather = { id: "tc1", name: "get_weather", args: '{"location":"Paris"}' };
const bg = { id: "tc-bg", name: "change_background", args: '{"background":"blue"}' };
const bgTool = { name: "change_background", description: "Change the page background", parameters: { type: "object" } };

function plainChat(): Scenario {
  const log = new Log()
    .created()
    .run("r1", { messages: [user("u1", "Hi")], state: {} })
    .task("r1", "k1", "llm-1")
    .text("r1", "a1", ["Hel", "lo", "!"])
    .assistant("r1", "a1", "Hello!")
    .usage("r1", 12, 3)
    .taskDone("r1", "k1")
    .suspended("r1");
  return { name: "plain chat", log, messages: [user("u1", "Hi"), assistantMessage("a1", "Hello!")], state: {}, compactable: true };
}

function backendTool(): Scenario {
  const log = new Log()
    .created()
    .run("r1", { messages: [user("u1", "Weather in Paris?")] })
    .task("r1", "k1", "llm-1")
    .text("r1", "a1", ["Let me ", "check."])
    .toolCall("r1", "a1", weather, ['{"location":', '"Paris"}'])
    .assistant("r1", "a1", "Let me check.", [weather])
    .usage("r1", 20, 8)
    .taskDone("r1", "k1")
    .task("r1", "k2", "get_weather", "tc1")
    .add({ type: "terminal.output", data: { runId: "r1", toolCallId: "tc1", stream: "stdout", data: "fetching\n" } })
    .add({ type: "activity.snapshot", data: { runId: "r1", messageId: "act1", activityType: "progress", content: { pct: 10 } } })
    .add({ type: "activity.delta", data: { runId: "r1", messageId: "act1", activityType: "progress", patch: [{ op: "replace", path: "/pct", value: 100 }] } })
    .taskDone("r1", "k2")
    .toolResult("r1", "tr1", "tc1", '{"temperature":20}')
    .task("r1", "k3", "llm-2")
    .text("r1", "a2", ["It is 20°C in Paris."])
    .assistant("r1", "a2", "It is 20°C in Paris.")
    .usage("r1", 30, 6)
    .taskDone("r1", "k3")
    .completed("r1", { answered: true });
  const messages = [
    user("u1", "Weather in Paris?"),
    assistantMessage("a1", "Let me check.", [weather]),
    toolMessage("tr1", "tc1", '{"temperature":20}'),
    { id: "act1", role: "activity", activityType: "progress", content: { pct: 100 } } as Message,
    assistantMessage("a2", "It is 20°C in Paris."),
  ];
  // Not compactable as a whole: activity.delta is a stream event, so the activity stays at 10%.
  return { name: "backend tool call with result and follow-up answer", log, messages, state: {}, compactable: false };
}

function frontendTool(): Scenario {
  const log = new Log()
    .created()
    .run("r1", { messages: [user("u1", "Make it blue")], tools: [bgTool], state: { theme: "light" } })
    .task("r1", "k1", "llm-1")
    .toolCall("r1", "a1", bg)
    .assistant("r1", "a1", undefined, [bg])
    .taskDone("r1", "k1")
    .suspended("r1", "frontend_tool", ["tc-bg"]);
  const messages = [user("u1", "Make it blue"), assistantMessage("a1", undefined, [bg])];
  return { name: "frontend tool suspends the run", log, messages, state: { theme: "light" }, compactable: true };
}

function frontendToolAnswered(): Scenario {
  const base = frontendTool();
  const log = base.log
    .run("r2", { messages: [toolMessage("tr-bg", "tc-bg", "background changed")], tools: [bgTool] })
    .task("r2", "k1", "llm-1")
    .text("r2", "a2", ["Done!"])
    .assistant("r2", "a2", "Done!")
    .taskDone("r2", "k1")
    .suspended("r2");
  const messages = [...base.messages, toolMessage("tr-bg", "tc-bg", "background changed"), assistantMessage("a2", "Done!")];
  return { name: "frontend tool answered by the next run", log, messages, state: { theme: "light" }, compactable: true };
}

function parallelToolCalls(): Scenario {
  const paris = { id: "tc1", name: "get_weather", args: '{"location":"Paris"}' };
  const rome = { id: "tc2", name: "get_weather", args: '{"location":"Rome"}' };
  const log = new Log()
    .created()
    .run("r1", { messages: [user("u1", "Paris and Rome?")] })
    .task("r1", "k1", "llm-1")
    .add({ type: "toolcall.started", data: { runId: "r1", toolCallId: "tc1", name: "get_weather", parentMessageId: "a1" } })
    .add({ type: "toolcall.started", data: { runId: "r1", toolCallId: "tc2", name: "get_weather", parentMessageId: "a1" } })
    .add({ type: "toolcall.args", data: { runId: "r1", toolCallId: "tc2", delta: '{"location":"Rome"}' } })
    .add({ type: "toolcall.args", data: { runId: "r1", toolCallId: "tc1", delta: '{"location":"Paris"}' } })
    .add({ type: "toolcall.ended", data: { runId: "r1", toolCallId: "tc2" } })
    .add({ type: "toolcall.ended", data: { runId: "r1", toolCallId: "tc1" } })
    .assistant("r1", "a1", undefined, [paris, rome])
    .taskDone("r1", "k1")
    .task("r1", "k2", "get_weather:tc1", "tc1")
    .task("r1", "k3", "get_weather:tc2", "tc2")
    .taskDone("r1", "k3")
    .toolResult("r1", "tr2", "tc2", "25")
    .taskDone("r1", "k2")
    .toolResult("r1", "tr1", "tc1", "20")
    .text("r1", "a2", ["Paris 20, Rome 25."])
    .assistant("r1", "a2", "Paris 20, Rome 25.")
    .suspended("r1");
  const messages = [
    user("u1", "Paris and Rome?"),
    assistantMessage("a1", undefined, [paris, rome]),
    toolMessage("tr2", "tc2", "25"),
    toolMessage("tr1", "tc1", "20"),
    assistantMessage("a2", "Paris 20, Rome 25."),
  ];
  return { name: "parallel tool calls", log, messages, state: {}, compactable: true };
}

function stateSnapshotThenDeltas(): Scenario {
  const log = new Log()
    .created()
    .run("r1", { messages: [user("u1", "Plan it")], state: { steps: [], count: 0 } })
    .add({ type: "state.patched", data: { runId: "r1", patch: [{ op: "add", path: "/steps/-", value: "shop" }] } })
    .add({ type: "state.patched", data: { runId: "r1", patch: [{ op: "replace", path: "/count", value: 1 }] } })
    .add({ type: "state.set", data: { runId: "r1", state: { steps: ["bake"], count: 5 } } })
    // Does not apply (no /missing): changes nothing, here and on the client.
    .add({ type: "state.patched", data: { runId: "r1", patch: [{ op: "remove", path: "/missing" }] } })
    .add({ type: "state.patched", data: { runId: "r1", patch: [{ op: "add", path: "/done", value: true }] } })
    .text("r1", "a1", ["Planned."])
    .assistant("r1", "a1", "Planned.")
    .suspended("r1");
  return {
    name: "state snapshot then deltas",
    log,
    messages: [user("u1", "Plan it"), assistantMessage("a1", "Planned.")],
    state: { steps: ["bake"], count: 5, done: true },
    compactable: true,
  };
}

function reasoning(): Scenario {
  const log = new Log()
    .created()
    .run("r1", { messages: [user("u1", "Best car?")] })
    .task("r1", "k1", "llm-1")
    .reasoning("r1", "rs1", ["Weighing ", "options."])
    .add({ type: "message.appended", data: { runId: "r1", source: "agent", message: { id: "rs1", role: "reasoning", content: "Weighing options." } } })
    .text("r1", "a1", ["A bicycle."])
    .assistant("r1", "a1", "A bicycle.")
    .taskDone("r1", "k1")
    .suspended("r1");
  const messages = [
    user("u1", "Best car?"),
    { id: "rs1", role: "reasoning", content: "Weighing options." } as Message,
    assistantMessage("a1", "A bicycle."),
  ];
  return { name: "reasoning", log, messages, state: {}, compactable: true };
}

function failedUpstream(): Scenario {
  const log = new Log()
    .created()
    .run("r1", { messages: [user("u1", "Hi")] })
    .task("r1", "k1", "llm-1")
    .text("r1", "a1", ["Partial an"], { end: false })
    .usage("r1", 5, 2)
    .failed("r1", "UPSTREAM_ERROR", "The model provider answered 500")
    .add({ type: "text.delta", data: { runId: "r1", messageId: "a1", delta: "swer" } });
  // a1 was never recorded (the engine appends what streamed before it fails; this log did not):
  // the resync before RUN_ERROR drops it, so clients end where a reload would.
  const messages = [user("u1", "Hi")];
  return { name: "failed run (upstream error) with a message left open", log, messages, state: {}, compactable: false };
}

function cancelled(): Scenario {
  const log = new Log()
    .created()
    .run("r1", { messages: [user("u1", "Search")] })
    .task("r1", "k1", "llm-1")
    .text("r1", "a1", ["Working"], { end: false })
    .toolCall("r1", "a1", { id: "tc1", name: "search", args: '{"q":' }, ['{"q":'], { end: false })
    .cancelled("r1", "user pressed stop")
    .add({ type: "toolcall.args", data: { runId: "r1", toolCallId: "tc1", delta: '"x"}' } });
  // Nothing of a1 was recorded: the resync before RUN_ERROR drops the half-streamed message.
  const messages = [user("u1", "Search")];
  return { name: "cancellation", log, messages, state: {}, compactable: false };
}

function recovered(): Scenario {
  const log = new Log()
    .created()
    .run("r1", { messages: [user("u1", "Hi")] })
    .task("r1", "k1", "llm-1")
    .text("r1", "a1", ["Hal"], { end: false })
    .add({ type: "workflow.resumed", data: { runId: "r1", reason: "recovered", owner: "instance-b" } })
    // A write from the dead worker that landed after the takeover: a1 is closed, so it shows nowhere.
    .add({ type: "text.delta", data: { runId: "r1", messageId: "a1", delta: "lo" } })
    .task("r1", "k2", "llm-1")
    .text("r1", "a2", ["Hello again."])
    .assistant("r1", "a2", "Hello again.")
    .taskDone("r1", "k2")
    .suspended("r1");
  // The partial a1 is superseded: clients drop it, as a reload never had it.
  const messages = [user("u1", "Hi"), assistantMessage("a2", "Hello again.")];
  return { name: "recovered run", log, messages, state: {}, compactable: false };
}

function continuedAfterHandOff(): Scenario {
  const rs = { id: "rs1", role: "reasoning", content: "Thinking it over." } as Message;
  const log = new Log()
    .created()
    .run("r1", { messages: [user("u1", "Tell me")] })
    .task("r1", "k1", "llm-1")
    .reasoning("r1", "rs1", ["Thinking ", "it over."])
    .text("r1", "a1", ["Once upon", " a time"], { end: false })
    .add({ type: "workflow.handed_over", data: { runId: "r1", owner: "instance-a", step: 0, cut: true } })
    .add({ type: "workflow.resumed", data: { runId: "r1", reason: "handed_over", owner: "instance-b", from: "instance-a", continues: ["rs1", "a1"] } })
    // The re-issued request answered the same: only the words past the cut ones are streamed.
    .task("r1", "k2", "llm-2")
    .add({ type: "text.delta", data: { runId: "r1", messageId: "a1", delta: " there was a log." } })
    .add({ type: "text.ended", data: { runId: "r1", messageId: "a1" } })
    .add({ type: "message.appended", data: { runId: "r1", source: "agent", message: rs } })
    .assistant("r1", "a1", "Once upon a time there was a log.")
    .taskDone("r1", "k2")
    .suspended("r1");
  const messages = [user("u1", "Tell me"), rs, assistantMessage("a1", "Once upon a time there was a log.")];
  return { name: "cut answer continued after a hand-off", log, messages, state: {}, compactable: true };
}

function withdrawnAfterTakeover(): Scenario {
  const log = new Log()
    .created()
    .run("r1", { messages: [user("u1", "Tell me")] })
    .task("r1", "k1", "llm-1")
    .text("r1", "a1", ["Once upon"], { end: false })
    .add({ type: "workflow.resumed", data: { runId: "r1", reason: "recovered", owner: "instance-b", continues: ["a1"] } })
    // The re-issued request answered otherwise: the cut words are withdrawn, the answer is new.
    .task("r1", "k2", "llm-2")
    .add({ type: "stream.withdrawn", data: { runId: "r1", messageIds: ["a1"] } })
    .text("r1", "a2", ["In a land", " far away."])
    .assistant("r1", "a2", "In a land far away.")
    .taskDone("r1", "k2")
    .suspended("r1");
  const messages = [user("u1", "Tell me"), assistantMessage("a2", "In a land far away.")];
  return { name: "cut answer withdrawn after a takeover", log, messages, state: {}, compactable: false };
}

function severalRuns(): Scenario {
  const log = new Log()
    .created()
    .run("r1", { messages: [user("u1", "Hi")], state: { n: 1 } })
    .text("r1", "a1", ["Hello."])
    .assistant("r1", "a1", "Hello.")
    .suspended("r1")
    .run("r2", { messages: [user("u2", "Again")], state: { n: 2 } })
    .text("r2", "a2", ["Hello again."])
    .assistant("r2", "a2", "Hello again.")
    .completed("r2");
  const messages = [user("u1", "Hi"), assistantMessage("a1", "Hello."), user("u2", "Again"), assistantMessage("a2", "Hello again.")];
  return { name: "several runs in one thread", log, messages, state: { n: 2 }, compactable: true };
}

function cancelledWhilePending(): Scenario {
  const log = new Log()
    .created()
    .run("r1", { messages: [user("u1", "Hi")] })
    .text("r1", "a1", ["Hello."])
    .assistant("r1", "a1", "Hello.")
    .suspended("r1")
    .run("r2", { messages: [user("u2", "Never mind")], start: false })
    .cancelled("r2");
  const messages = [user("u1", "Hi"), assistantMessage("a1", "Hello."), user("u2", "Never mind")];
  return { name: "run cancelled before it started", log, messages, state: {}, compactable: true };
}

export function scenarios(): Scenario[] {
  return [
    plainChat(),
    backendTool(),
    frontendTool(),
    frontendToolAnswered(),
    parallelToolCalls(),
    stateSnapshotThenDeltas(),
    reasoning(),
    failedUpstream(),
    cancelled(),
    recovered(),
    continuedAfterHandOff(),
    withdrawnAfterTakeover(),
    severalRuns(),
    cancelledWhilePending(),
  ];
}

export function scenario(name: string): Scenario {
  const found = scenarios().find((s) => s.name === name);
  if (!found) throw new Error(`No scenario named "${name}"`);
  return found;
}
