/**
 * The engine's clocks: the lease heartbeat of the runs executing here, and the recovery sweep
 * that claims expired leases. Both are unref'd: they never keep a process alive on their own.
 */
export interface EngineTimers {
  stop(): void;
}

export function startEngineTimers(opts: {
  leaseTtlMs: number;
  heartbeat: () => Promise<void>;
  sweep: () => Promise<void>;
}): EngineTimers {
  // Three beats per TTL: a lease survives two missed beats.
  const beat = Math.max(50, Math.floor(opts.leaseTtlMs / 3));
  const heartbeat = setInterval(() => void opts.heartbeat(), beat);
  heartbeat.unref();
  // A lease that expired is claimed within one sweep interval, so recovery takes at most
  // TTL + sweepIntervalMs(TTL). Rejected: TTL/2, which let it take half a TTL more than the
  // documented bound (docs/failure-modes.md). One sweep at a time: during an outage one may
  // retry for DB_RETRY_MAX_MS.
  let sweeping = false;
  const sweep = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    void opts.sweep().finally(() => (sweeping = false));
  }, sweepIntervalMs(opts.leaseTtlMs));
  sweep.unref();
  return {
    stop() {
      clearInterval(heartbeat);
      clearInterval(sweep);
    },
  };
}

/** How often expired leases are looked for: a quarter of the TTL, at most a second. */
export function sweepIntervalMs(leaseTtlMs: number): number {
  return Math.max(50, Math.min(1_000, Math.floor(leaseTtlMs / 4)));
}
