/**
 * Every model's stream made storable, at the one place the engine reads it (engine/llm-task.ts),
 * so the openai, AI SDK and demo adapters, and a Model an application wrote itself, all get it.
 * Providers cut their deltas by tokens or by UTF-16 units, and an emoji can end up half in one
 * delta and half in the next; NUL can come through too. Either would make the log refuse the
 * delta and fail the run. Text, reasoning and each tool call's arguments are a stream of their
 * own here (store/storable-text.ts holds the rule): a trailing high surrogate waits for the next
 * delta of the same stream, and becomes U+FFFD when that stream ends (a call's tool-call-end,
 * or the response's finish) without completing it.
 *
 * Rejected: the rule in each adapter, which a Model written by an application would skip; and
 * repairing the text when the run ends, which is too late for the deltas already appended.
 * A stream that throws loses a held half with the rest of its answer (the partial text a failed
 * answer keeps is well-formed either way).
 */
import { StorableTextStream, toStorableText } from "../store/storable-text.ts";
import type { ModelPart } from "./model.ts";

export async function* storableParts(parts: AsyncIterable<ModelPart>): AsyncGenerator<ModelPart, void, undefined> {
  const text = new StorableTextStream();
  const reasoning = new StorableTextStream();
  const args = new Map<number, StorableTextStream>();
  const endArgs = function* (index: number): Generator<ModelPart> {
    const tail = args.get(index)?.end() ?? "";
    args.delete(index);
    if (tail !== "") yield { type: "tool-call-args-delta", index, delta: tail };
  };
  // The reasoning span closes when the answer starts (engine/llm-answer.ts): its tail goes first.
  const endReasoning = function* (): Generator<ModelPart> {
    const tail = reasoning.end();
    if (tail !== "") yield { type: "reasoning-delta", delta: tail };
  };
  const endAll = function* (): Generator<ModelPart> {
    yield* endReasoning();
    const tail = text.end();
    if (tail !== "") yield { type: "text-delta", delta: tail };
    for (const index of [...args.keys()]) yield* endArgs(index);
  };

  for await (const part of parts) {
    switch (part.type) {
      case "text-delta": {
        yield* endReasoning();
        const delta = text.push(part.delta);
        if (delta !== "") yield { ...part, delta };
        break;
      }
      case "reasoning-delta": {
        // A part with provider data goes on even when its text is held back: the data is the point.
        const delta = reasoning.push(part.delta);
        if (delta !== "" || part.providerData) yield { ...part, delta };
        break;
      }
      case "tool-call-start":
        yield* endReasoning();
        args.set(part.index, new StorableTextStream());
        yield { ...part, id: toStorableText(part.id), name: toStorableText(part.name) };
        break;
      case "tool-call-args-delta": {
        // Arguments without a start (an adapter's bug) still get the rule.
        const stream = args.get(part.index) ?? new StorableTextStream();
        args.set(part.index, stream);
        const delta = stream.push(part.delta);
        if (delta !== "") yield { ...part, delta };
        break;
      }
      case "tool-call-end":
        yield* endArgs(part.index);
        yield part;
        break;
      case "finish":
        yield* endAll();
        yield part;
        break;
      case "usage":
        yield part;
        break;
    }
  }
  // A Model that ended without a finish part (the engine takes its answer as it is).
  yield* endAll();
}
