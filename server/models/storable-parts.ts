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

/**
 * The rule as a step the engine calls per part (engine/llm-task.ts), handing what comes out to
 * `out` in order: a token passes no generator of its own here. Rejected: an async generator over
 * the model's stream, one more hop (promises, iterator results, microtask turns) per token on
 * the hot path (docs/performance.md, "The hops a token takes").
 */
export class StorableParts {
  readonly #text = new StorableTextStream();
  readonly #reasoning = new StorableTextStream();
  readonly #args = new Map<number, StorableTextStream>();

  constructor(private readonly out: (part: ModelPart) => void) {}

  push(part: ModelPart): void {
    const out = this.out;
    switch (part.type) {
      case "text-delta": {
        this.#endReasoning();
        const delta = this.#text.push(part.delta);
        if (delta !== "") out(delta === part.delta ? part : { ...part, delta });
        break;
      }
      case "reasoning-delta": {
        // A part with provider data goes on even when its text is held back: the data is the point.
        const delta = this.#reasoning.push(part.delta);
        if (delta !== "" || part.providerData) out(delta === part.delta ? part : { ...part, delta });
        break;
      }
      case "tool-call-start":
        this.#endReasoning();
        this.#args.set(part.index, new StorableTextStream());
        out({ ...part, id: toStorableText(part.id), name: toStorableText(part.name) });
        break;
      case "tool-call-args-delta": {
        // Arguments without a start (an adapter's bug) still get the rule.
        const stream = this.#args.get(part.index) ?? new StorableTextStream();
        this.#args.set(part.index, stream);
        const delta = stream.push(part.delta);
        if (delta !== "") out(delta === part.delta ? part : { ...part, delta });
        break;
      }
      case "tool-call-end":
        this.#endArgs(part.index);
        out(part);
        break;
      case "finish":
        this.end();
        out(part);
        break;
      case "usage":
        out(part);
        break;
    }
  }

  /** The stream ended (a finish part, or a Model that ended without one): the held tails go out. */
  end(): void {
    this.#endReasoning();
    const tail = this.#text.end();
    if (tail !== "") this.out({ type: "text-delta", delta: tail });
    for (const index of [...this.#args.keys()]) this.#endArgs(index);
  }

  #endArgs(index: number): void {
    const tail = this.#args.get(index)?.end() ?? "";
    this.#args.delete(index);
    if (tail !== "") this.out({ type: "tool-call-args-delta", index, delta: tail });
  }

  // The reasoning span closes when the answer starts (engine/llm-answer.ts): its tail goes first.
  #endReasoning(): void {
    const tail = this.#reasoning.end();
    if (tail !== "") this.out({ type: "reasoning-delta", delta: tail });
  }
}

/** The same rule over a whole stream (tests, and a caller that wants a stream). */
export async function* storableParts(parts: AsyncIterable<ModelPart>): AsyncGenerator<ModelPart, void, undefined> {
  const ready: ModelPart[] = [];
  const storable = new StorableParts((part) => ready.push(part));
  for await (const part of parts) {
    storable.push(part);
    yield* ready.splice(0);
  }
  // A Model that ended without a finish part (the engine takes its answer as it is).
  storable.end();
  yield* ready.splice(0);
}
