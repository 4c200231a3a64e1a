/**
 * What a run's end stores of its checkpoint (migration 0008): a patch on the checkpoint its fold
 * was resumed from, while the patches since the last full fold stay no bigger than it, and the
 * full fold otherwise. So each byte of conversation is written a bounded number of times: the
 * full folds double at most as often as the conversation does, and between two of them the
 * patches add up to one. Rejected: a full fold every N runs, whose bytes still grow with
 * runs × conversation (divided by N), and patches forever, which make every read fold them all.
 */
import type { Checkpoint, FoldState } from "../../protocol/checkpoint.ts";
import { diffFold } from "../../protocol/checkpoint-patch.ts";

export interface CheckpointPart {
  /** JSON of the patch or of the full fold */
  text: string;
  /** the seq of the part the patch applies to; null: a full fold */
  baseSeq: number | null;
  bytes: number;
}

export function checkpointPart(fold: FoldState, base: Checkpoint | undefined): CheckpointPart {
  if (base?.parts) {
    const text = JSON.stringify(diffFold(base.fold, fold));
    const bytes = Buffer.byteLength(text);
    if (base.parts.patchBytes + bytes <= base.parts.fullBytes) return { text, baseSeq: base.seq, bytes };
  }
  const text = JSON.stringify(fold);
  return { text, baseSeq: null, bytes: Buffer.byteLength(text) };
}
