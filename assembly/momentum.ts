// Nesterov momentum for cyclic boosting (accelerated gradient boosting): a round's sweep over the terms (every
// column's cut, or every pair's) makes F(t+1) from its starting point G(t); the next sweep starts from
// G(t+1) = F(t+1) + beta (F(t+1) - F(t)), beta = (lambda(t) - 1) / lambda(t+1) with
// lambda(t+1) = (1 + sqrt(1 + 4 lambda(t)^2)) / 2, at most MOMENTUM_MAX. It restarts (beta 0, lambda 1) when
// the sweep's own step points against the momentum: their product over the term slots, each weighted by its
// training rows, is not positive. The terms kept (a bag's best round) are always an F, never a G.
//
// Why: on columns that move together (a stone's x, y, z, carat and price) a cyclic sweep zig-zags, each
// column's step partly undoing the others': diamonds' bags took about 1,300 rounds to stop. With momentum
// they stop after about 300, at a validation loss as low (docs/engine-history.md "Momentum").
import { ldf, stf, allocF64, release } from './mem';
import { MOMENTUM_FROM, MOMENTUM_MAX } from './tunables';

export class Momentum {
  slots: i32;
  fPrev: usize; // f64 [slots]: F(t)
  move: usize; // f64 [slots]: the sweep's starting point G(t) during a round; the move G(t+1) - F(t+1) after extrapolate
  mult: usize; // f64 [slots]: exp(move), the factor of the odds of a row in that slot
  lambda: f64 = 1;
  running: bool = false;
  /** The training rows' odds have yet to take the last move (each term's in the pass that builds its histogram). */
  pending: bool = false;

  constructor(slots: i32) {
    this.slots = slots;
    this.fPrev = allocF64(slots); this.move = allocF64(slots); this.mult = allocF64(slots);
  }

  /**
   * Whether to extrapolate after round `round` (best so far `bestRound`): from the first round at or after
   * MOMENTUM_FROM that improved the validation loss on. A bag that stops improving before then boosts exactly as
   * it would without momentum, the same bytes.
   */
  startsOrRuns(round: i32, bestRound: i32): bool {
    if (!this.running && round >= MOMENTUM_FROM && bestRound == round) this.running = true;
    return this.running;
  }

  /** Notes the sweep's starting point (the terms `work`). */
  startRound(work: usize): void {
    memory.copy(this.move, work, <usize>this.slots << 3);
  }

  /** No extrapolation after this round: F(t+1) becomes F(t). */
  keep(work: usize): void {
    memory.copy(this.fPrev, work, <usize>this.slots << 3);
  }

  /**
   * After a sweep (`work` holds F(t+1)): the momentum, and when it is positive, `work` moved to G(t+1), each
   * slot's move in `move` and its odds factor in `mult`, `pending` set. Returns whether anything moved.
   * `weight`: training rows of each slot (0 for slots the momentum must not move).
   */
  extrapolate(work: usize, weight: usize): bool {
    const slots = this.slots, fPrev = this.fPrev, move = this.move;
    let dot = 0.0;
    for (let o = 0; o < slots; o++) {
      const f1 = ldf(work, o);
      dot += ldf(weight, o) * (f1 - ldf(move, o)) * (f1 - ldf(fPrev, o));
    }
    let beta = 0.0;
    if (dot > 0) {
      const next = (1.0 + Math.sqrt(1.0 + 4.0 * this.lambda * this.lambda)) * 0.5;
      beta = Math.min(MOMENTUM_MAX, (this.lambda - 1.0) / next);
      this.lambda = next;
    } else this.lambda = 1.0;
    if (beta == 0) { this.keep(work); return false; }
    for (let o = 0; o < slots; o++) {
      const f1 = ldf(work, o);
      const d = ldf(weight, o) > 0 ? beta * (f1 - ldf(fPrev, o)) : 0.0;
      stf(fPrev, o, f1);
      stf(work, o, f1 + d);
      stf(move, o, d);
      stf(this.mult, o, Math.exp(d));
    }
    this.pending = true;
    return true;
  }

  free(): void { release(this.fPrev); release(this.move); release(this.mult); }
}
