// Shared shapes for the bench peers: encoded train/test matrices in, P(y = 1) on test rows out.

export interface PeerInput {
  xTrain: number[][];
  yTrain: Uint8Array;
  xTest: number[][];
}

export interface PeerResult {
  /** P(outcome = positive) for each test row, in test order. */
  p: Float64Array;
  /** Wall time of the fit alone (not encoding, not prediction). */
  fitMs: number;
  /** CPU time of the fit, when the peer reports it (the Python peers do). */
  cpuMs?: number;
}
