/**
 * A conversation as the folds keep it (Reconstructor, Projector): messages in order, upserted by
 * id through an index, and cut back by a fork. Rejected: findIndex over the list, which made a
 * run whose input holds n messages cost n² (a 3.5 MB POST, seconds of CPU on every replay of its
 * thread); and each fold keeping its own list and index, two copies of the same bookkeeping.
 */
import type { Message } from "@ag-ui/core";
import { keptBy } from "./branches.ts";

export class MessageList {
  readonly #items: Message[] = [];
  readonly #index = new Map<string, number>();

  constructor(messages: Iterable<Message> = []) {
    for (const m of messages) this.upsert(m);
  }

  /** The messages in order (the list itself: copy it to keep it). */
  get items(): readonly Message[] {
    return this.#items;
  }

  /** Adds `m`, or replaces the message with its id where it stood. */
  upsert(m: Message): void {
    const at = this.#index.get(m.id);
    if (at === undefined) {
      this.#index.set(m.id, this.#items.length);
      this.#items.push(m);
    } else this.#items[at] = m;
  }

  /** What a fork keeps: the messages up to and including `keepThrough` (protocol/branches.ts). */
  keep(keepThrough: string | null): void {
    const kept = keptBy(this.#items, keepThrough);
    this.#items.length = 0;
    this.#index.clear();
    for (const m of kept) this.upsert(m);
  }
}
