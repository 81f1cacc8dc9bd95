// The fit's tunables in one place (engine.md "Steps of a fit"). What was measured when one was chosen is
// in BENCHMARKS.md "Engine history"; the comments here say why.

export const N_BAGS: i32 = 8;
export const HELD_OUT_FRACTION: f64 = 0.25;
export const BAG_VALID_FRACTION: f64 = 0.15;
// Large records: each bag boosts on a stratified random subset of at most this many rows and stops
// early on at most MAX_BAG_VALID rows (8 bags of different subsets still see nearly every row).
export const MAX_BAG_TRAIN: f64 = 25000;
export const MAX_BAG_VALID: f64 = 8000;
export const LEARNING_RATE: f64 = 0.1;
// Cross-fitted bags boost stagewise (below) at a larger rate: one column a round from a linear start, 0.15 fits as
// well as 0.1 on the five cross-fitted tables' 33 splits for 10-15% less CPU (0.2 lost 0.001-0.003 of log loss on
// penguins and titanic). BENCHMARKS.md "Engine history".
export const STAGEWISE_LEARNING_RATE: f64 = 0.15;
export const PATIENCE: i32 = 30;
export const MAX_ROUNDS: i32 = 3000;
export const PAIR_PATIENCE: i32 = 25; // pair tables are few and coarse: they settle sooner
export const PAIR_MAX_ROUNDS: i32 = 400;
export const MIN_HELD_CLASS: i32 = 20; // positives and negatives needed in the held-out part
// and 50 of the rarer class in training, however many columns: not_yet means too few to test at all, and
// the held-out test (not a count of columns) decides whether a wide table's pattern holds
export const MIN_TRAIN_MINORITY: i32 = 50;
export const RESTATES_AUC: f64 = 0.985; // a single column this good on held-in rows restates the outcome
// one-sided alpha 0.005 over the larger of DeLong's error and the null spread (stats.ts aucZ): at 0.01,
// permuted labels were answered too close to the 1% the honesty target allows
export const Z_AUC: f64 = 2.5758293035489004;
export const Z_LOG_LOSS: f64 = 1.6448536269514722; // one-sided alpha 0.05
export const Z_INTERVAL: f64 = 1.959963984540054; // two-sided 95% interval of the held-out AUC
// Single splits are always rescaled by a Platt fit on their bags' out-of-bag logits (bags.ts calibrate);
// cross-fitted fold models are not rescaled one by one: the served model's temperature (TEMPER_*) is chosen
// on their out-of-fold logits (bags.ts finishFolds says why).
export const PAIR_MIN_ROWS: i32 = 1000;
// Cross-fitting (records whose single split would leave fewer than PAIR_MIN_ROWS training rows): the
// labeled rows fall into CROSS_FOLDS folds by entity hash; each fold is held out once from a model
// of BAGS_PER_FOLD bags. A single 25% split of a small record holds out too few of the rarer class to
// check anything, and its served model learns from only 75% of the rows.
export const CROSS_FOLDS: i32 = 4;
export const BAGS_PER_FOLD: i32 = 8;
// Cross-fitted bags boost stagewise (boost.ts boostStagewise): first SMOOTH_ROUNDS smoothing rounds,
// in which every numeric column takes a seeded random valid cut instead of its best one, so terms
// grow as gentle ramps rather than a few steep steps learned from a handful of rows; then one column
// a round, the one whose best cut gains most.
export const SMOOTH_ROUNDS: i32 = 25;
// A cross-fitted bag may start from a ridge logistic regression on its numeric columns' ranks (linear.ts),
// kept when its validation rows prefer it; it then skips the smoothing rounds. Penalty LINEAR_RIDGE on the
// sum of row losses (scikit-learn's C = 1; 10 gained nothing on penguins). A record of more than LINEAR_MAX_COLS
// numeric columns keeps the plain start (the Newton steps cost rows x columns^2). BENCHMARKS.md "Engine history".
export const LINEAR_RIDGE: f64 = 1.0;
export const LINEAR_MAX_COLS: i32 = 64;
// A stagewise round steps one column, so it needs more rounds than a cyclic one for the same fit. Patience 80
// instead of 100 fits as well on the five cross-fitted tables' 33 splits (mean log loss within 0.0006 of 100's on
// each table and seed set; 60 lost up to 0.0024 on WDBC and cars) for 5-10% less CPU.
export const STAGEWISE_PATIENCE: i32 = 80;
export const STAGEWISE_MAX_ROUNDS: i32 = 5000;
// Cross-fitted fold models get pair terms of their own (bags.ts foldPairs): at most CROSS_PAIRS each, ranked
// without the rows that gate them, and kept when at least CROSS_PAIR_AGREE of the fold's BAGS_PER_FOLD bags
// (a majority) agree. The gate rows take no part in the ranking, so a plain majority suffices; a single
// split's gate (pairs.ts MIN_BAGS_AGREE, 6 of 8) judges pairs ranked on its own rows as well.
export const CROSS_PAIRS: i32 = 10;
export const CROSS_PAIR_AGREE: i32 = 5;
// The cross-fitted served model's temperature (bags.ts temper) stays within [TEMPER_LOW, TEMPER_HIGH].
export const TEMPER_LOW: f64 = 0.25;
export const TEMPER_HIGH: f64 = 2;
// Residual trees (residual-trees.ts, tree-stage.ts): oblivious trees of 4 levels boosted in each bag on what its main
// terms and kept pairs leave, at TREE_LEARNING_RATE with TREE_L2 added to each leaf's hessian. A single split's bags
// stop after TREE_PATIENCE rounds without a better loss on their even validation rows, and the trees stay candidates
// when TREE_AGREE of the 8 bags see their odd (gate) rows improve. A cross-fitted bag holds 15-30 validation rows,
// too few to halve: it stops on all of them (TREE_CROSS_STOP_HALF -1) and has no gate. Either way the trees are kept
// only when the held-out (out-of-fold) log loss with them beats the one without by a paired z of at least Z_TREES.
// Records of more than TREE_MAX_TRAIN training rows do not try them. BENCHMARKS.md "Engine history".
export const TREE_LEARNING_RATE: f64 = 0.1;
export const TREE_L2: f64 = 1;
export const TREE_PATIENCE: i32 = 20;
export const TREE_MAX_ROUNDS: i32 = 300;
export const TREE_AGREE: i32 = 6;
export const Z_TREES: f64 = 1.6448536269514722;
export const TREE_MAX_TRAIN: i32 = 250000;
export const TREE_CROSS_STOP_HALF: i32 = -1;
export const TREE_CROSS_PATIENCE: i32 = 20;
export const TREE_CROSS_ROUNDS: i32 = 300;
export const TREE_CROSS_LR: f64 = 0.1;
