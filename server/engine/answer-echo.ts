/**
 * The first model request of a run taken over mid-answer, filtered against what clients already
 * have of the cut answer (cut-answer.ts). The request is re-issued from the start (a provider
 * cannot resume a stream), so a model that answers the same streams the same first words again:
 * those are held back, compared with the cut answer, and never streamed twice. Then one of:
 *
 * - the answer goes past the cut one (it starts with all of it): the cut messages are continued,
 *   under their own ids, with only the words that follow (LlmAnswer.resume);
 * - it ends exactly where the cut one stopped, or calls a tool from there: the same, with nothing
 *   to add to the text;
 * - it differs (another wording, shorter, a tool call before the cut text is matched): the cut
 *   messages are withdrawn (stream.withdrawn: clients drop them) and the held-back parts stream
 *   as a new answer, from its first word.
 *
 * Rejected: streaming the re-issued answer as a new message and superseding the cut one at once
 * (the client saw every word of the cut text twice, the second time after a pause of the cut
 * text's length); continuing by sending the cut text back as an assistant prefix (most
 * OpenAI-compatible providers do not continue a trailing assistant message, they answer it).
 */
import type { ModelPart } from "../models/model.ts";
import { cutAnswerIds, type CutAnswer } from "./cut-answer.ts";
import type { LlmAnswer } from "./llm-answer.ts";

type Verdict = "wait" | "continue" | "diverge";

export class AnswerEcho {
  #decided = false;
  readonly #held: ModelPart[] = [];
  #reasoning = "";
  #text = "";

  constructor(
    private readonly cut: CutAnswer,
    private readonly answer: LlmAnswer,
    /** Appends the stream.withdrawn of the cut messages. */
    private readonly withdraw: (messageIds: string[]) => void,
  ) {}

  take(part: ModelPart): void {
    if (this.#decided) {
      this.answer.take(part);
      return;
    }
    this.#held.push(part);
    const verdict = this.#judge(part);
    if (verdict === "continue") this.#continue();
    else if (verdict === "diverge") this.#diverge();
  }

  /** The model's answer ended: a cut answer still matched is continued only if it was all matched. */
  finish(): void {
    if (this.#decided) return;
    if (this.#matchedWhole()) this.#continue();
    else this.#diverge();
  }

  /**
   * The request failed or was cancelled before the answer was decided: clients have the cut
   * words, so the answer that LlmAnswer keeps (keepPartial) is those words under their ids.
   */
  keepWhatClientsHave(): void {
    if (this.#decided) return;
    this.#decided = true;
    this.answer.resume(this.cut);
  }

  #judge(part: ModelPart): Verdict {
    const { reasoning, text } = this.cut;
    switch (part.type) {
      case "reasoning-delta": {
        // Provider data alone shows nothing; reasoning after the text began is dropped (LlmAnswer).
        if (part.delta === "" || this.#text !== "") return "wait";
        this.#reasoning += part.delta;
        if (!reasoning) return "diverge";
        if (reasoning.content.startsWith(this.#reasoning)) return "wait";
        return this.#reasoning.startsWith(reasoning.content) && !reasoning.ended && !text ? "continue" : "diverge";
      }
      case "text-delta": {
        if (part.delta === "") return "wait";
        if (this.#reasoning !== (reasoning?.content ?? "")) return "diverge";
        this.#text += part.delta;
        if (!text) return "continue";
        if (text.content.startsWith(this.#text)) return "wait";
        return this.#text.startsWith(text.content) && !text.ended ? "continue" : "diverge";
      }
      case "tool-call-start":
        return this.#matchedWhole() ? "continue" : "diverge";
      default:
        return "wait";
    }
  }

  #matchedWhole(): boolean {
    return this.#reasoning === (this.cut.reasoning?.content ?? "") && this.#text === (this.cut.text?.content ?? this.#text);
  }

  /**
   * Resumes the cut messages, then gives the answer what the held parts add to them: their
   * provider data and other parts in order, then the reasoning and the text past the cut words.
   */
  #continue(): void {
    this.#decided = true;
    this.answer.resume(this.cut);
    const { reasoning, text } = this.cut;
    for (const part of this.#held) {
      if (part.type === "reasoning-delta") {
        if (part.providerData) this.answer.take({ type: "reasoning-delta", delta: "", providerData: part.providerData });
      } else if (part.type !== "text-delta") this.answer.take(part);
    }
    const moreReasoning = this.#reasoning.slice(reasoning?.content.length ?? 0);
    if (moreReasoning !== "") this.answer.take({ type: "reasoning-delta", delta: moreReasoning });
    const moreText = this.#text.slice(text?.content.length ?? 0);
    if (moreText !== "") this.answer.take({ type: "text-delta", delta: moreText });
  }

  #diverge(): void {
    this.#decided = true;
    this.withdraw(cutAnswerIds(this.cut));
    for (const part of this.#held) this.answer.take(part);
  }
}
