// Every tuned constant of the fit in one place (docs/design/engine.md#steps), with the range it was tried or can
// sensibly take and why it has its value. What was measured when one was chosen is in docs/engine-history.md
// ("Engine history", and "Engine changes measured on the bench splits"); the layout constants (a bin is a u8:
// binning.ts BIN_STRIDE, MAX_VALUE_BINS, MAX_CATEGORY_BINS) are not tunables and live where bins are made.

// ---- held-out part and bags ----

// 8 bags (docs/design/engine.md#step-5): averaged, they smooth each term; a reason's sign must hold across them (REASON_*) and
// pairs must help in most of them (MIN_BAGS_AGREE). Not tuned since docs/design/engine.md; fewer would weaken both checks.
export const N_BAGS: i32 = 8;
// About 25% of entities held out for the final test (docs/design/engine.md#step-2); fold 0 of CROSS_FOLDS = 4 is the same part.
export const HELD_OUT_FRACTION: f64 = 0.25;
export const BAG_VALID_FRACTION: f64 = 0.15; // each bag's early-stopping rows (docs/design/engine.md#step-5)
// Large records: each bag boosts on a stratified random subset of at most this many rows and stops
// early on at most MAX_BAG_VALID rows (8 bags of different subsets still see nearly every row). Range tried:
// 12,500-40,000; 12,500 and 17,000 lost flights 0.011 and 0.005 of AUC, 40,000 changed nothing on flights.
export const MAX_BAG_TRAIN: f64 = 25000;
export const MAX_BAG_VALID: f64 = 8000;

// ---- cyclic boosting of main terms (single splits) ----

// Shrinkage of each cut's Newton step (docs/design/engine.md#step-6 started at 0.05). Range tried 0.05-0.3: at 0.2 diamonds
// stopped in half the rounds but 0.0014 of AUC worse; at 0.3 its pairs no longer passed their gate.
export const LEARNING_RATE: f64 = 0.1;
// Rounds without a better validation loss before a bag stops (the best round is kept); MAX_ROUNDS only bounds a
// runaway (no bench bag comes near it since momentum).
export const PATIENCE: i32 = 30;
export const MAX_ROUNDS: i32 = 3000;
// Nesterov momentum of the cyclic rounds (momentum.ts), main terms and pairs alike, from the first round at or
// after MOMENTUM_FROM that improves the validation loss: a bag that has stopped improving by then (every bench
// table's but diamonds', and every sample's) boosts exactly as without it, while a bag whose columns move together
// (diamonds: x, y, z, carat and price) stops after about 320 rounds instead of 1,300, at the same held-out
// quality. Range tried: from round 0, 50 or 100; ceiling 0.9, 0.95, 0.99. From 0 or 50 it cost up to 0.0024 of
// log loss on DNA and credit_onehot (10 other splits); a ceiling of 0.95 or 0.99 stopped diamonds sooner but
// 0.0004-0.0007 of log loss worse. docs/engine-history.md "Momentum".
export const MOMENTUM_FROM: i32 = 100;
export const MOMENTUM_MAX: f64 = 0.9;

// ---- the split search (split.ts) ----

// Rows each side of a cut must keep. Range tried 4-10: 10 instead of 4 lifted the cross-fitted tables (cars
// 0.976 -> 0.978, CPS 0.696 -> 0.700, penguins 0.973 -> 0.974) with Telco unchanged.
export const MIN_CHILD_ROWS: f64 = 10;
// A side's hessian sum must exceed this to take a Newton step (a numeric guard, not tuned).
export const HESS_FLOOR: f64 = 1e-9;
// Categorical bins are ordered by G/(H + CAT_SMOOTH) before a cut: a value seen a few times with a chance-high
// ratio does not set the order. 0 (plain G/H) -> 10: flights' ~200 airports AUC 0.617 -> 0.619.
export const CAT_SMOOTH: f64 = 10;

// ---- binning (binning.ts) ----

// At most one numeric value bin per MIN_ROWS_PER_BIN training values, never under MIN_VALUE_BINS (nor over 255):
// on a small table one bin per distinct value leaves a row or two a bin and the terms learn noise. Range tried
// 1 (a bin per value), 5, 8, 10, 20: penguins 0.967, 0.978, worse, 0.976, 0.973; large tables keep 255 bins.
export const MIN_ROWS_PER_BIN: i32 = 5;
export const MIN_VALUE_BINS: i32 = 16;
// A categorical value needs this many training rows for a level of its own (docs/design/engine.md#step-4); rarer values share
// the "other" level, which also scores values the fit never saw (docs/decisions/0067-unseen-categories.md).
export const MIN_CATEGORY_COUNT: i32 = 10;

// ---- pair terms (pairs.ts; docs/design/engine.md#step-7) ----

// Pairs tried: one per 2 usable columns, from MIN_PAIRS up to MAX_PAIRS. Wide tables hold more interactions
// worth a term (DNA's 180 indicator columns: 10 -> 30 pairs lifted AUC 0.987 -> 0.989, spam's 57 columns
// 0.984 -> 0.985); on narrow ones the FAST ranking past the first few is noise (flights, 6 columns: all 15 pairs
// 0.617, 10 pairs 0.619).
export const MIN_PAIRS: i32 = 10;
export const MAX_PAIRS: i32 = 30;
// Coarse bins per column of a pair's table (docs/design/engine.md#step-7: 16 x 16 cells cut in quadrants); a cell index of a
// coarse pair is then a u8.
export const PAIR_COARSE: i32 = 16;
// Each of a quadrant cut's four parts must keep this many rows (as MIN_CHILD_ROWS for a cut of one column).
export const MIN_QUADRANT_ROWS: f64 = 10;
// Pairs are kept when they lower the gate rows' log loss in at least MIN_BAGS_AGREE of the N_BAGS bags (and on the
// whole): docs/design/engine.md "consistently across bags". Pairs ranked on the gate's own rows need more than a majority.
export const MIN_BAGS_AGREE: i32 = 6;
// A single split's gated phases (pairs, trees) run their first GATE_FIRST_BATCH bags, then the rest only when the
// gate can still pass: once more than N_BAGS - agree bags have failed, the others' results would be discarded
// (bags.ts nextGatedBatch). The batches are fixed, so every pool size runs the same tasks. Not a model setting.
export const GATE_FIRST_BATCH: i32 = 4;
export const PAIR_PATIENCE: i32 = 25; // pair tables are few and coarse: they settle sooner
export const PAIR_MAX_ROUNDS: i32 = 400;
// A pair whose fine bins make at most FULL_PAIR_CELLS cells (at most 256: a cell index is a u8), one of its
// columns having more than PAIR_COARSE bins (month x day of month: 7 x 32), keeps every fine cell and steps like
// one categorical column of those cells (split.ts cellCut): coarse bins and quadrant cuts would blur a date into a
// half month. Only with at least FULL_CELL_ROWS training rows a cell on average: with about 4 (a cross-fitted fold
// of 1,200 rows) the cells' order is mostly noise, and the cuts cost the fit 45% more CPU for pairs its gate then
// dropped; 10 lost a planted date effect at 2,000 rows (about 7 a cell), which 5 keeps.
export const FULL_PAIR_CELLS: i32 = 256;
export const FULL_CELL_ROWS: i32 = 5;

// ---- tree terms (cell-trees.ts, pairs.ts) ----

// At most MAX_TREE_TERMS, each a full-resolution pair x a categorical column of more than PAIR_COARSE values,
// boosted by small trees over the pair's cells and the column's values, on single splits of TREE_MIN_ROWS
// training rows or more. Flights' delays gather on (date, airport): a storm closes an airport for a day.
export const MAX_TREE_TERMS: i32 = 4;
export const TREE_MIN_ROWS: i32 = 10000;
// Leaves of a tree term's tree, grown best first. Range tried 8-32: flights AUC 0.6338 (8), 0.6385 (16), 0.6413
// (24), 0.6415 (32).
export const TREE_LEAVES: i32 = 32;
// Added to a leaf's hessian in its Newton step. 0 instead of 1: flights 0.6339 / 0.4950 against 0.6338 / 0.4950 at
// 8 leaves (no difference); 1 keeps a leaf of few rows from a large step.
export const TREE_L2: f64 = 1;

// ---- the held-out decision (fit.ts decide; docs/design/engine.md#step-9) ----

export const MIN_HELD_CLASS: i32 = 20; // positives and negatives needed in the held-out part
// and 50 of the rarer class in training, however many columns: not_yet means too few to test at all, and
// the held-out test (not a count of columns) decides whether a wide table's pattern holds
export const MIN_TRAIN_MINORITY: i32 = 50;
// Cross-fitted records (every labeled row held out once) need this many of the rarer class in each fold model's
// expected training share instead (3/4 of the record: 15 -> 20 of the rarer class in the record, the held-out bar).
export const MIN_CROSS_TRAIN_MINORITY: i32 = 15;
export const RESTATES_AUC: f64 = 0.985; // a single column this good on held-in rows restates the outcome
// one-sided alpha 0.005 over the larger of DeLong's error and the null spread (stats.ts aucZ): at 0.01,
// permuted labels were answered too close to the 1% the honesty target allows
export const Z_AUC: f64 = 2.5758293035489004;
// Cross-fitted records: one-sided alpha 0.0005. Each fold model learns from the other folds' labels, so the folds'
// out-of-fold statistics are correlated (fold 1's rows score fold 2's model and the other way round) and the
// pooled AUC's null spread is wider than DeLong's or the Mann-Whitney formula's: on permuted labels its z had a
// spread of 1.4 (ionosphere, 351 x 33) to 1.6 (sonar 208 x 60, ad_data 333 x 130) where a calibrated z has 1, and at Z_AUC ad_data's
// were answered 2% of the time. docs/engine-history.md "Honesty: re-measurements".
export const Z_AUC_CROSS: f64 = 3.2905267314919255;
export const Z_LOG_LOSS: f64 = 1.6448536269514722; // one-sided alpha 0.05
export const Z_INTERVAL: f64 = 1.959963984540054; // two-sided 95% interval of the held-out AUC
// Single splits are always rescaled by a Platt fit on their bags' out-of-bag logits (bags.ts calibrate);
// cross-fitted fold models are not rescaled one by one: the served model's temperature (TEMPER_*) is chosen
// on their out-of-fold logits (bags.ts finishFolds says why).
export const PAIR_MIN_ROWS: i32 = 1000;
// A wide record (at least TREE_CROSS_WIDE_FROM columns sent, the complement of NARROW_CROSS_COLS) is cross-fitted below
// CROSS_WIDE_MIN_ROWS training rows of a single split instead of PAIR_MIN_ROWS (1,334-2,666 labeled rows move):
// its single split's served model learns from 75% of the rows and its trees are gated on few validation rows.
// Bench splits, AUC / log loss: cells 0.8954 / 0.3915 -> 0.8986 / 0.3862, DNA 0.9893 / 0.1240 -> 0.9920 / 0.1109,
// at 5-9 times the fit's CPU. docs/decisions/0101-wide-records-cross-fitted-to-2000-rows.md.
export const CROSS_WIDE_MIN_ROWS: i32 = 2000;

// ---- cross-fitting of small records ----

// Cross-fitting (records whose single split would leave fewer than PAIR_MIN_ROWS training rows): the
// labeled rows fall into CROSS_FOLDS folds by entity hash; each fold is held out once from a model
// of BAGS_PER_FOLD bags. A single 25% split of a small record holds out too few of the rarer class to
// check anything, and its served model learns from only 75% of the rows. 4 bags a fold -> 8: cars 0.974 -> 0.976,
// CPS 0.689 -> 0.696; 6 instead of 8 saved 25% of CPU but lost titanic 0.0027 of log loss.
export const CROSS_FOLDS: i32 = 4;
export const BAGS_PER_FOLD: i32 = 8;
// Narrow records (fewer than NARROW_CROSS_COLS columns sent) whose single split would train on NARROW_CROSS_FROM to
// NARROW_CROSS_ROWS rows (about 2,667-3,999 labeled rows) are cross-fitted too, with NARROW_BAGS_PER_FOLD bag a
// fold. A single split serves a model of 75% of the rows, and at this size the quarter it holds out is what keeps it
// behind a peer that learns from every row: on credit (3,340 training rows a bench split) tuned HistGradientBoosting
// fitted on 75% of them loses 0.008 of log loss, and our single split was 0.0030 behind the same peer fitted on all.
// Cross-fitted, the served model averages four fold models that each learn from 75%, so every row counts, and the
// out-of-fold test reads every labeled row. One bag a fold (4 bags, each boosting on about 64% of the rows as a
// single split's 8 bags do) fits as well as 2 or 8 (credit's bench splits without fold pairs: log loss 0.4271, 0.4263,
// 0.4267) at about the single split's CPU; 2 cost 1.4x, 8 cost 4-5x. Credit 0.4330 -> 0.4260 (tuned
// HistGradientBoosting 0.4300). Its fold pairs are kept when its one bag agrees (bags.ts
// foldPairAgree). Wide records keep the single split here (spam and DNA lost AUC cross-fitted with one bag a fold; below
// CROSS_WIDE_MIN_ROWS they are cross-fitted with BAGS_PER_FOLD bags, decision 0101). Below NARROW_CROSS_FROM a
// fold model ranks its pairs on fewer than about 1,300 rows, too few for a date's full-resolution cells: a planted
// date effect at 2,000 labeled rows (test/engine/full-pairs.test.ts), answered by the single split, was refused
// cross-fitted.
// docs/decisions/0099-narrow-records-cross-fitted.md.
export const NARROW_CROSS_FROM: i32 = 2000;
export const NARROW_CROSS_ROWS: i32 = 3000;
export const NARROW_CROSS_COLS: i32 = 32;
export const NARROW_BAGS_PER_FOLD: i32 = 1;
// Cross-fitted bags boost stagewise at a larger rate: one column a round from a linear start, 0.15 fits as
// well as 0.1 on the five cross-fitted tables' 33 splits for 10-15% less CPU (0.2 lost 0.001-0.003 of log loss on
// penguins and titanic).
export const STAGEWISE_LEARNING_RATE: f64 = 0.15;
// Cross-fitted bags boost stagewise (boost.ts boostStagewise): first SMOOTH_ROUNDS smoothing rounds,
// in which every numeric column takes a seeded random valid cut instead of its best one, so terms
// grow as gentle ramps rather than a few steep steps learned from a handful of rows; then one column
// a round, the one whose best cut gains most. Range tried 0, 10, 25: CPS 0.700, 0.706, 0.710.
export const SMOOTH_ROUNDS: i32 = 25;
// A cross-fitted bag may start from a ridge logistic regression on its numeric columns' ranks (linear.ts),
// kept when its validation rows prefer it; it then skips the smoothing rounds. Penalty LINEAR_RIDGE on the
// sum of row losses (scikit-learn's C = 1; 10 gained nothing on penguins). A record of more than LINEAR_MAX_COLS
// numeric columns keeps the plain start (the Newton steps cost rows x columns^2).
export const LINEAR_RIDGE: f64 = 1.0;
export const LINEAR_MAX_COLS: i32 = 64;
// The linear start's Newton steps stop after LINEAR_NEWTON_STEPS or once no coefficient moves more than
// LINEAR_NEWTON_TOL (test/engine/linear-newton.test.ts checks that they reach its optimum).
export const LINEAR_NEWTON_STEPS: i32 = 25;
export const LINEAR_NEWTON_TOL: f64 = 1e-9;
// A stagewise round steps one column, so it needs more rounds than a cyclic one for the same fit. Patience 80
// instead of 100 fits as well on the five cross-fitted tables' 33 splits (mean log loss within 0.0006 of 100's on
// each table and seed set; 60 lost up to 0.0024 on WDBC and cars) for 5-10% less CPU.
export const STAGEWISE_PATIENCE: i32 = 80;
export const STAGEWISE_MAX_ROUNDS: i32 = 5000;
// Cross-fitted fold models get pair terms of their own (bags.ts foldPairs): at most CROSS_PAIRS each, ranked
// without the rows that gate them, and kept when at least CROSS_PAIR_AGREE of the fold's BAGS_PER_FOLD bags
// (a majority) agree. The gate rows take no part in the ranking, so a plain majority suffices; a single
// split's gate (MIN_BAGS_AGREE, 6 of 8) judges pairs ranked on its own rows as well.
export const CROSS_PAIRS: i32 = 10;
export const CROSS_PAIR_AGREE: i32 = 5;
// The cross-fitted served model's temperature (bags.ts temper) stays within [TEMPER_LOW, TEMPER_HIGH].
export const TEMPER_LOW: f64 = 0.25;
export const TEMPER_HIGH: f64 = 2;

// ---- reasons (model.ts; docs/design/engine.md#scoring) ----

// A column is a reason when its contribution moves the odds by at least a quarter (ln 1.25) and its sign holds in
// at least REASON_SIGN_AGREEMENT of the bags; `strong` from a doubling or halving of the odds (ln 2).
export const REASON_MIN_LOG_ODDS: f64 = 0.22314355131420976; // ln 1.25
export const REASON_STRONG_LOG_ODDS: f64 = 0.6931471805599453; // ln 2
export const REASON_SIGN_AGREEMENT: f64 = 0.75; // at least 3 of 4 bags

// ---- residual trees (residual-trees.ts, tree-stage.ts) ----

// Residual trees (residual-trees.ts, tree-stage.ts): oblivious trees of 4 levels boosted in each bag on what its main
// terms and kept pairs leave, at TREE_LEARNING_RATE with RESIDUAL_TREE_L2 added to each leaf's hessian. A single split's bags
// stop after TREE_PATIENCE rounds without a better loss on their even validation rows, and the trees stay candidates
// when TREE_AGREE of the 8 bags see their odd (gate) rows improve. A cross-fitted bag holds 15-30 validation rows,
// too few to halve or to stop on: it boosts a fixed number of trees (below; TREE_CROSS_STOP_HALF -1) and has no
// gate. Either way the trees are kept
// only when the held-out (out-of-fold) log loss with them beats the one without by a paired z of at least Z_TREES.
// Records of more than TREE_MAX_TRAIN training rows do not try them. docs/engine-history.md "Residual trees".
export const TREE_LEARNING_RATE: f64 = 0.1;
export const RESIDUAL_TREE_L2: f64 = 1;
export const TREE_PATIENCE: i32 = 20;
export const TREE_MAX_ROUNDS: i32 = 300;
export const TREE_AGREE: i32 = 6;
export const Z_TREES: f64 = 1.6448536269514722;
export const TREE_MAX_TRAIN: i32 = 250000;
export const TREE_CROSS_STOP_HALF: i32 = -1;
// Cross-fitted bags (small records, often wide) grow their trees more like a forest: a fixed TREE_CROSS_ROUNDS
// trees at TREE_CROSS_LR (TREE_CROSS_PATIENCE 0: no early stop), each level's cut picked among a seeded half of
// the columns (TREE_CROSS_COL_FRACTION; the draw is keyed by the bag's seed, the round, the level and the column,
// so any worker grows the same trees). A cross-fitted bag's 15-30 validation rows stopped its trees at a noisy
// minimum; the out-of-fold test (Z_TREES) still decides whether they are kept. On the quality bench's splits,
// AUC before -> after: sonar 0.8973 -> 0.9067, ionosphere 0.9663 -> 0.9686, ad_data 0.8957 -> 0.9014; 150 rounds
// at 0.05, 75 at 0.1, 50 at 0.15 and 25 at 0.3 did as well, within 0.002 of one another (the gain is the sampled
// columns and the fixed steps, not the rounds). With 35 at 0.2 a small record's fit takes 0.64-0.89x the CPU it took
// with the early-stopped trees (counting the tree stage's same-bytes speedups).
// docs/engine-history.md "Forest-shaped residual trees". Single splits scan every column (1: the old code path);
// half the columns gained cells 0.0004, inside the noise.
export const TREE_CROSS_PATIENCE: i32 = 0;
export const TREE_CROSS_ROUNDS: i32 = 35;
export const TREE_CROSS_LR: f64 = 0.2;
export const TREE_COL_FRACTION: f64 = 1.0;
export const TREE_CROSS_COL_FRACTION: f64 = 0.5;
// A cross-fitted bag of a wide record (at least TREE_CROSS_WIDE_FROM usable columns) steps its leaves by
// -lr G/(H + TREE_CROSS_WIDE_L2) instead of RESIDUAL_TREE_L2. Its bags hold about 100-400 training rows, so a leaf
// (of 16) often holds a few rows with a hessian of at most 0.25 each: an L2 of 1 shrank such a leaf's step by half or
// more. On the quality bench's splits, AUC / log loss at L2 1 -> 0.1: sonar 0.9067 / 0.3912 -> 0.9117 / 0.3780,
// ionosphere 0.9686 / 0.2097 -> 0.9721 / 0.2078, musk 0.9316 / 0.3213 -> 0.9358 / 0.3135, ad_data 0.9014 / 0.3491 ->
// 0.8978 / 0.3481; on narrow records (cars, titanic) fewer trees passed the out-of-fold test and AUC fell 0.002, so
// they keep an L2 of 1. docs/engine-history.md "Lighter leaves on wide small records".
export const TREE_CROSS_WIDE_FROM: i32 = 32;
export const TREE_CROSS_WIDE_L2: f64 = 0.1;
// ... and boosts its TREE_CROSS_ROUNDS trees at TREE_CROSS_WIDE_LR instead of TREE_CROSS_LR: the trees' whole step
// (rounds x rate) had stayed at about 7 in every variant tried before (150 x 0.05 to 25 x 0.3), and a larger one
// helped each wide table. On the quality bench's splits (seed 1337, 3 a table), AUC / log loss at 0.2 -> 0.4: sonar
// 0.9117 / 0.3780 -> 0.9157 / 0.3709, ionosphere 0.9721 / 0.2078 -> 0.9738 / 0.2071, ad_data 0.8978 / 0.3481 ->
// 0.9000 / 0.3463, musk 0.9358 / 0.3135 -> 0.9376 / 0.3099; on 10 other splits (seed 2027) each table gained too
// (sonar +0.0053 of AUC). 0.3, 0.6 and 0.8, and 70 or 50 rounds, did no better. The same CPU (the same trees).
// docs/engine-history.md "A larger step for wide records' trees".
export const TREE_CROSS_WIDE_LR: f64 = 0.4;
// ... and grows them on all of its fold's rows: the bag's training rows and its validation rows. A cross-fitted bag's
// trees neither stop nor gate on their validation rows (TREE_CROSS_PATIENCE 0, TREE_CROSS_STOP_HALF -1; the
// single-split Platt fit that reads out-of-bag tree logits is not run), so those 15% of the fold's rows were only
// left out; the out-of-fold test (Z_TREES) and the served weight read the held fold's rows, which no bag of the fold
// sees, so the trees are judged as before. More rows a leaf, where each bag holds 100-400. Bench splits (seed 1337,
// 3 a table), AUC / log loss before -> after: sonar 0.9246 / 0.3481 -> 0.9266 / 0.3433, ionosphere 0.9756 /
// 0.2119 -> 0.9786 / 0.2072, musk 0.9407 / 0.3046 -> 0.9478 / 0.2863, ad_data 0.8986 / 0.3457 -> 0.8974 / 0.3449;
// on 10 other splits (seed 2027) each table gained both (sonar +0.0045 of AUC, musk +0.0044, ad_data +0.0017).
// docs/engine-history.md "Wide records' trees on all of the fold's rows".
export const TREE_CROSS_WIDE_ALL_ROWS: bool = true;
// A cross-fitted record's kept trees join the served model at weight w (tree-stage.ts servedTreeWeight): the first of
// these whose out-of-fold logits, at their own temperature, have the lowest log loss (1 first: it wins ties). Each
// fold model's trees (35 small steps with the leaves shrunk) under-reach what they find, and the served model
// averages four folds' different trees, which shrinks their part again; the main terms are not shrunk that way.
// On the bench splits and 10 other splits, log loss before -> after: sonar 0.3780 -> 0.3552 and 0.4054 -> 0.3798,
// ad_data 0.3481 -> 0.3456 and 0.3765 -> 0.3731, cars 0.1810 -> 0.1793 and 0.2734 -> 0.2694; ionosphere 0.2078
// -> 0.2118 and 0.2115 -> 0.2121, penguins 0.1945 -> 0.1950 and 0.2231 -> 0.2246. A grid up to 2 gained less
// (sonar 0.3630). docs/engine-history.md "Served weight of cross-fitted trees".
export const TREE_SERVE_WEIGHTS: StaticArray<f64> = [1.0, 0.5, 0.75, 1.25, 1.5, 2.0, 3.0];
// A wide record's single split (at least TREE_CROSS_WIDE_FROM usable columns and fewer than TREE_LARGE_FROM training
// rows, so no bag of it is large) boosts its trees at TREE_WIDE_LR, each level's cut among TREE_WIDE_COL_FRACTION of
// the columns (a seeded draw, as a cross-fitted bag's), early-stopped as other single splits; a bag of at least
// TREE_WIDE_FIXED_FROM training rows boosts a fixed TREE_WIDE_FIXED_ROUNDS trees instead (its gate rows and the
// held-out test still decide whether they are kept). On the bench splits (seed 1337, 3 a table), AUC / log loss
// before -> after: Satellite (about 3,100 training rows a bag) 0.9564 / 0.1464 -> 0.9592 / 0.1404, cells (about
// 970) 0.8947 / 0.3923 -> 0.8954 / 0.3915, spam and DNA unchanged (no trees kept, as before); on 10 other splits
// Satellite 0.9528 / 0.1546 -> 0.9536 / 0.1528 and cells 0.8899 -> 0.8896 (noise). Fixed rounds lost cells' trees
// (0.8931 / 0.3949); early stopping, even with a patience of 50, kept Satellite's on 1-2 of 3 splits.
// docs/engine-history.md "Wide single splits' trees".
export const TREE_WIDE_LR: f64 = 0.2;
export const TREE_WIDE_COL_FRACTION: f64 = 0.5;
export const TREE_WIDE_FIXED_FROM: i32 = 2500;
export const TREE_WIDE_FIXED_ROUNDS: i32 = 50;
// A single split's bag of at least TREE_LARGE_FROM training rows (records of about 31,000 training rows or more,
// where MAX_BAG_TRAIN caps the bag or nearly) boosts its trees at TREE_LARGE_LR: its validation rows are many, so
// larger steps stop on the same loss in fewer trees. 0.1 -> 0.3 on diamonds' 3 bench splits: 1,123-1,684 trees a
// fit -> 549-736, AUC 0.9446 -> 0.9452, log loss 0.2863 -> 0.2849, 16% less CPU; flights unchanged; realistic
// 100,000 x 30 AUC the same, log loss +0.0001 (one split's trees no longer kept). The planted table of
// test/engine/residual-trees.test.ts (9,000 training rows) keeps TREE_LEARNING_RATE: at 0.2 or 0.3 it lost its
// trees. Patience 10 with 0.3 lost diamonds 0.0003 of AUC. docs/engine-history.md "Speed work".
export const TREE_LARGE_FROM: i32 = 20000;
export const TREE_LARGE_LR: f64 = 0.3;
