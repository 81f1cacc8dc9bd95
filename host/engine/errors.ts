// The engine's own error: a fit or a score that could not run. `retryable` says whether the same call can
// succeed later (a worker that died, a pool shutting down) or will fail the same way (bad input, a trap).
// abi_mismatch: build/engine.wasm and the host come from different checkouts (wasm.ts checks at load).
export type EngineFailure = 'bad_input' | 'bad_model' | 'trap' | 'worker_died' | 'pool_closed' | 'not_built' | 'abi_mismatch';

const RETRYABLE: ReadonlySet<EngineFailure> = new Set(['worker_died', 'pool_closed']);

export class EngineError extends Error {
  override name = 'EngineError';
  constructor(
    readonly failure: EngineFailure,
    message: string,
  ) {
    super(message);
  }

  get retryable(): boolean {
    return RETRYABLE.has(this.failure);
  }
}
