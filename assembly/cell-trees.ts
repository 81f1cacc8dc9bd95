// A small tree over two coded features of a bag's training rows, for a tree term (pairs.ts): each feature is a
// u8 code per row (a full-resolution pair's fine cell, such as a date made of month x day of month; or a
// many-valued categorical column's fine bin), and every split is a categorical cut of one feature's codes among
// the node's rows (split.ts cellCut: codes ordered by G/(H + CAT_SMOOTH), MIN_CHILD_ROWS a side). Grown best
// first to at most TREE_LEAVES leaves. Every node's region is a product of a code set of each feature (a split
// narrows one of them), so each leaf is a rectangle of the term's table after the two features' codes are
// re-ordered, and a leaf's step covers codes no row of the node had as well.
import { ldf, stf, ldi, sti, allocF64, allocI32, allocU8 } from './mem';
import { cellCut } from './split';
import { BIN_STRIDE } from './binning';
import { TREE_LEAVES } from './tunables';

const MAX_NODES: i32 = 2 * TREE_LEAVES - 1;
const CODES: i32 = BIN_STRIDE; // a feature's codes are u8: a fine bin, or a pair's fine cell

// Per node: the rows' positions are ORDER[lo, hi); the histogram of each feature (f64 [code][g, h] and rows
// f64 [code]); the code set of each feature (u8 [code]: 1 in the region); its best cut (feature, gain, sides).
const LO = allocI32(MAX_NODES), HI = allocI32(MAX_NODES);
const GH = allocF64(MAX_NODES * 2 * CODES * 2);
const NN = allocF64(MAX_NODES * 2 * CODES);
const IN_SET = allocU8(MAX_NODES * 2 * CODES);
const CUT_FEATURE = allocI32(MAX_NODES);
const CUT_GAIN = allocF64(MAX_NODES);
const CUT_SIDE = allocU8(MAX_NODES * CODES); // side of each code of the cut feature: 0 left, 1 right, 2 no rows
const IS_LEAF = allocU8(MAX_NODES);
const SIDE_TMP = allocU8(CODES);
const STEPS_TMP = allocF64(2);

@inline function ghOf(node: i32, f: i32): usize { return GH + (<usize>((node * 2 + f) * CODES) << 4); }
@inline function nOf(node: i32, f: i32): usize { return NN + (<usize>((node * 2 + f) * CODES) << 3); }
@inline function setOf(node: i32, f: i32): usize { return IN_SET + <usize>((node * 2 + f) * CODES); }

/** The grown tree: its leaves' nodes, each leaf's gradient and hessian sums; ORDER holds the rows by node. */
export class CellTree {
  leaves: i32 = 0;
  leafNode: usize = allocI32(TREE_LEAVES);
  order: usize = 0; // i32 [nT], the caller's: rows grouped by leaf (LO/HI of each leaf node)
  tmp: usize = 0; // i32 [nT] scratch for the partition
  /** Rows [lo, hi) of ORDER in leaf k. */
  lo(k: i32): i32 { return ldi(LO, ldi(this.leafNode, k)); }
  hi(k: i32): i32 { return ldi(HI, ldi(this.leafNode, k)); }
  /** Whether feature f's code x lies in leaf k's region. */
  @inline has(k: i32, f: i32, x: i32): bool { return load<u8>(setOf(ldi(this.leafNode, k), f) + <usize>x) != 0; }
  /** Leaf k's gradient sum (over its feature-0 histogram; n0 codes). */
  g(k: i32, n0: i32): f64 { return sumLane(ghOf(ldi(this.leafNode, k), 0), n0, 0); }
  /** Leaf k's hessian sum. */
  h(k: i32, n0: i32): f64 { return sumLane(ghOf(ldi(this.leafNode, k), 0), n0, 8); }
}

function sumLane(gh: usize, n: i32, lane: usize): f64 {
  let s = 0.0;
  for (let x = 0; x < n; x++) s += load<f64>(gh + (<usize>x << 4) + lane);
  return s;
}

/** Adds rows ORDER[lo, hi) to node's two histograms. */
function fillHist(node: i32, x0: usize, x1: usize, g: usize, h: usize, order: usize, lo: i32, hi: i32, n0: i32, n1: i32): void {
  const gh0 = ghOf(node, 0), gh1 = ghOf(node, 1), c0 = nOf(node, 0), c1 = nOf(node, 1);
  memory.fill(gh0, 0, <usize>n0 << 4); memory.fill(c0, 0, <usize>n0 << 3);
  memory.fill(gh1, 0, <usize>n1 << 4); memory.fill(c1, 0, <usize>n1 << 3);
  for (let t = lo; t < hi; t++) {
    const i = <usize>ldi(order, t);
    const gi = load<f64>(g + (i << 3)), hi2 = load<f64>(h + (i << 3));
    const a = <usize>load<u8>(x0 + i), b = <usize>load<u8>(x1 + i);
    const o0 = gh0 + (a << 4), o1 = gh1 + (b << 4);
    store<f64>(o0, load<f64>(o0) + gi); store<f64>(o0 + 8, load<f64>(o0 + 8) + hi2);
    store<f64>(o1, load<f64>(o1) + gi); store<f64>(o1 + 8, load<f64>(o1 + 8) + hi2);
    store<f64>(c0 + (a << 3), load<f64>(c0 + (a << 3)) + 1);
    store<f64>(c1 + (b << 3), load<f64>(c1 + (b << 3)) + 1);
  }
}

/** node's histograms = parent's minus sibling's (the larger child, without a pass over its rows). */
function subtractHist(node: i32, parent: i32, sibling: i32, n0: i32, n1: i32): void {
  for (let f = 0; f < 2; f++) {
    const n = f == 0 ? n0 : n1;
    const d = ghOf(node, f), p = ghOf(parent, f), s = ghOf(sibling, f);
    for (let x = 0; x < 2 * n; x++) stf(d, x, ldf(p, x) - ldf(s, x));
    const dn = nOf(node, f), pn = nOf(parent, f), sn = nOf(sibling, f);
    for (let x = 0; x < n; x++) stf(dn, x, ldf(pn, x) - ldf(sn, x));
  }
}

/** The node's best cut over both features (feature 0 first: ties keep it), or a gain of -1 when none is valid. */
function bestCut(node: i32, n0: i32, n1: i32): void {
  stf(CUT_GAIN, node, -1.0);
  for (let f = 0; f < 2; f++) {
    const gain = cellCut(ghOf(node, f), nOf(node, f), f == 0 ? n0 : n1, SIDE_TMP, STEPS_TMP);
    if (gain > ldf(CUT_GAIN, node)) {
      stf(CUT_GAIN, node, gain);
      sti(CUT_FEATURE, node, f);
      memory.copy(CUT_SIDE + <usize>(node * CODES), SIDE_TMP, <usize>(f == 0 ? n0 : n1));
    }
  }
}

/**
 * Grows the tree on rows 0..nT-1 with codes x0 (< n0) and x1 (< n1) and gradients g, hessians h; `tree.order`
 * and `tree.tmp` are i32 [nT] buffers. Returns the leaves (1: no valid cut).
 */
export function growTree(tree: CellTree, x0: usize, x1: usize, n0: i32, n1: i32, g: usize, h: usize, nT: i32): i32 {
  const order = tree.order, tmp = tree.tmp;
  for (let i = 0; i < nT; i++) sti(order, i, i);
  sti(LO, 0, 0); sti(HI, 0, nT);
  memory.fill(setOf(0, 0), 1, <usize>n0); memory.fill(setOf(0, 1), 1, <usize>n1);
  fillHist(0, x0, x1, g, h, order, 0, nT, n0, n1);
  bestCut(0, n0, n1);
  store<u8>(IS_LEAF, 1);
  let nodes = 1, leaves = 1;
  while (leaves < TREE_LEAVES) {
    // the leaf whose cut gains most (ties: the earlier node)
    let pick = -1, best = 0.0;
    for (let k = 0; k < nodes; k++) {
      if (load<u8>(IS_LEAF + <usize>k) == 0) continue;
      const gain = ldf(CUT_GAIN, k);
      if (gain > best) { best = gain; pick = k; }
    }
    if (pick < 0) break;
    const f = ldi(CUT_FEATURE, pick), nf = f == 0 ? n0 : n1, xf = f == 0 ? x0 : x1;
    const side = CUT_SIDE + <usize>(pick * CODES);
    // codes no row of the node had join the side of more hessian (the more ordinary one)
    const gh = ghOf(pick, f);
    let hl = 0.0, hr = 0.0;
    for (let x = 0; x < nf; x++) {
      const s = load<u8>(side + <usize>x);
      if (s == 0) hl += load<f64>(gh + (<usize>x << 4) + 8); else if (s == 1) hr += load<f64>(gh + (<usize>x << 4) + 8);
    }
    const emptySide: u8 = hl >= hr ? 0 : 1;
    for (let x = 0; x < nf; x++) if (load<u8>(side + <usize>x) == 2) store<u8>(side + <usize>x, emptySide);
    // stable partition of the node's rows: left side first
    const lo = ldi(LO, pick), hi = ldi(HI, pick);
    let l = lo, r = 0;
    for (let t = lo; t < hi; t++) {
      const i = ldi(order, t);
      if (load<u8>(side + <usize>load<u8>(xf + <usize>i)) == 0) { sti(order, l, i); l++; } else { sti(tmp, r, i); r++; }
    }
    for (let t = 0; t < r; t++) sti(order, l + t, ldi(tmp, t));
    const left = nodes, right = nodes + 1;
    nodes += 2;
    sti(LO, left, lo); sti(HI, left, l); sti(LO, right, l); sti(HI, right, hi);
    for (let c = 0; c < 2; c++) {
      const child = c == 0 ? left : right;
      for (let q = 0; q < 2; q++) {
        const n = q == 0 ? n0 : n1;
        const dst = setOf(child, q), src = setOf(pick, q);
        if (q != f) { memory.copy(dst, src, <usize>n); continue; }
        for (let x = 0; x < n; x++) store<u8>(dst + <usize>x, load<u8>(src + <usize>x) != 0 && load<u8>(side + <usize>x) == <u8>c ? 1 : 0);
      }
    }
    // the smaller child by a pass over its rows, the larger by subtraction
    const small = l - lo <= hi - l ? left : right, large = small == left ? right : left;
    fillHist(small, x0, x1, g, h, order, ldi(LO, small), ldi(HI, small), n0, n1);
    subtractHist(large, pick, small, n0, n1);
    bestCut(left, n0, n1); bestCut(right, n0, n1);
    store<u8>(IS_LEAF + <usize>pick, 0);
    store<u8>(IS_LEAF + <usize>left, 1); store<u8>(IS_LEAF + <usize>right, 1);
    leaves++;
  }
  let k = 0;
  for (let node = 0; node < nodes; node++) if (load<u8>(IS_LEAF + <usize>node) != 0) { sti(tree.leafNode, k, node); k++; }
  tree.leaves = k;
  return k;
}
