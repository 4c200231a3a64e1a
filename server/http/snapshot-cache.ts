/**
 * The encoded snapshot a reload sends, built once and shared by every stream that sends it.
 *
 * A reload of a thread where nothing runs is one snapshot run (MESSAGES_SNAPSHOT carries the
 * whole conversation), so its bytes are as large as the thread. Built per client, ten clients
 * reloading a 30 MB thread held ten folds, ten JSON strings and ten socket buffers of it. Here the
 * first reload of a (thread, log position, wire format) builds the bytes, the reloads that come
 * while a stream still holds them get the same Uint8Array, and the streams write slices of it
 * (views, not copies: sse-response.ts writeEncoded). The entry goes when its last holder releases
 * it, so nothing is kept for a thread nobody is reloading. Rejected: a time- or LRU-bounded cache,
 * which would keep a whole thread's bytes for nobody; a thread reloaded again after every stream
 * finished is built again, as before.
 *
 * The key says which bytes: the log is append-only up to a position (retention compacts stream
 * events, which a snapshot does not show), so the same thread at the same position makes the same
 * snapshot. The thread's creation time is in it because a deleted thread's id may be used again.
 */
import type { Metrics } from "../metrics.ts";

/**
 * How many distinct snapshots are shared at once. With the entries held only by open streams, the
 * cache holds at most this many snapshots (one copy each); a reload that finds it full builds its
 * own bytes, unshared, as every reload did before, and they go with its stream. Sixteen is far
 * more threads than are reloaded at the same moment on one instance in practice; the bound is
 * there so that a burst of reloads of many different threads cannot pin them all at once.
 */
export const SNAPSHOT_CACHE_MAX_ENTRIES = 16;

export interface EncodedFrames {
  /** The frames' wire bytes, one after the other. */
  bytes: Uint8Array;
  /** How many frames the bytes hold (for the frames counter). */
  frames: number;
}

export interface SnapshotLease {
  readonly snapshot: EncodedFrames;
  /** The stream is done with the bytes; idempotent. */
  release(): void;
}

interface Entry {
  ready: Promise<EncodedFrames>;
  holders: number;
  /** Counted in the gauge once the build is done and while the entry is in the map. */
  bytes: number;
}

export interface SnapshotCacheOptions {
  maxEntries?: number;
  metrics?: Pick<Metrics, "snapshotCacheBytes">;
}

export class SnapshotCache {
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;
  readonly #metrics: SnapshotCacheOptions["metrics"];

  constructor(opts: SnapshotCacheOptions = {}) {
    this.#maxEntries = opts.maxEntries ?? SNAPSHOT_CACHE_MAX_ENTRIES;
    this.#metrics = opts.metrics;
  }

  /** Entries held now. */
  get size(): number {
    return this.#entries.size;
  }

  /** Bytes of the built entries held now (the `threadline_reload_snapshot_bytes` gauge). */
  get bytes(): number {
    let n = 0;
    for (const e of this.#entries.values()) n += e.bytes;
    return n;
  }

  /**
   * The bytes for `key`: the entry's when one is held or being built (one build, however many
   * reloads wait for it), else `build()`'s, shared from then on while the cache has room. A build
   * that fails fails every reload waiting for it, and is tried again by the next one.
   */
  async acquire(key: string, build: () => Promise<EncodedFrames>): Promise<SnapshotLease> {
    let entry = this.#entries.get(key);
    if (!entry) {
      if (this.#entries.size >= this.#maxEntries) return { snapshot: await build(), release() {} };
      entry = this.#add(key, build);
    }
    entry.holders++;
    const held = entry;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      if (--held.holders === 0) this.#remove(key, held);
    };
    try {
      return { snapshot: await held.ready, release };
    } catch (err) {
      release();
      throw err;
    }
  }

  #add(key: string, build: () => Promise<EncodedFrames>): Entry {
    const entry: Entry = { ready: build(), holders: 0, bytes: 0 };
    this.#entries.set(key, entry);
    entry.ready.then(
      (s) => {
        // Every holder may have left while it was built: then it is already out of the map.
        if (this.#entries.get(key) !== entry) return;
        entry.bytes = s.bytes.byteLength;
        this.#metrics?.snapshotCacheBytes.inc(entry.bytes);
      },
      () => this.#remove(key, entry),
    );
    return entry;
  }

  #remove(key: string, entry: Entry): void {
    if (this.#entries.get(key) !== entry) return;
    this.#entries.delete(key);
    this.#metrics?.snapshotCacheBytes.dec(entry.bytes);
  }
}
