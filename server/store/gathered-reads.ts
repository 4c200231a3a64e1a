/**
 * Gathers concurrent reads of one kind into one statement, as the writer gathers appends into one
 * commit (writer.ts): a read asked while none of its kind is in flight goes out after the current
 * tick, with whatever else was asked in that tick; reads asked while one is in flight wait for it
 * and then go out together, up to `max` in one statement. A burst of hundreds of admissions then
 * costs a few statements instead of hundreds queued on the pool's connections, each its own
 * round trip and its own parse, plan and transaction in the database (which shares the machine).
 * Rejected: a fixed wait to gather more, which a lone admission would pay as latency.
 *
 * `read` answers the keys in their order. Its failure (after the caller's retries, inside it)
 * is every gathered caller's.
 */
export interface GatheredReads<K, V> {
  read(key: K): Promise<V>;
}

interface Pending<K, V> {
  key: K;
  resolve: (value: V) => void;
  reject: (err: unknown) => void;
}

export function gatheredReads<K, V>(read: (keys: readonly K[]) => Promise<V[]>, max: number): GatheredReads<K, V> {
  const cap = Math.max(1, Math.floor(max));
  const queue: Pending<K, V>[] = [];
  let running = false;
  let scheduled = false;

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.splice(0, cap);
      try {
        const values = await read(batch.map((p) => p.key));
        batch.forEach((p, i) => {
          p.resolve(values[i]!);
        });
      } catch (err) {
        for (const p of batch) p.reject(err);
      }
    }
  }

  function kick(): void {
    scheduled = false;
    if (running || queue.length === 0) return;
    running = true;
    void drain().finally(() => {
      running = false;
      if (queue.length > 0) kick();
    });
  }

  return {
    read(key) {
      return new Promise<V>((resolve, reject) => {
        queue.push({ key, resolve, reject });
        if (!running && !scheduled) {
          scheduled = true;
          queueMicrotask(kick);
        }
      });
    },
  };
}
