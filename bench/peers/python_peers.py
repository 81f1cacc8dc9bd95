# Python peers for the bench: scikit-learn LogisticRegression, HistGradientBoosting and XGBoost on given splits.
"""Usage: python_peers.py IN.json OUT.json

IN:  {"models": [names] or null for all, "xgb_tree_method": "auto" (default) or "hist",
      "splits": [{"n_train": n, "n_test": m, "d": d, "x_train": path, "y_train": path, "x_test": path}, ...]}
     x files: float64 little-endian, row-major (n x d); y file: uint8 0/1 (n). Paths are relative to IN.json.
OUT: {"versions": {...}, "peak_rss_mb": float,
      "models": {name: [{"p": [...], "fit_ms": float, "fit_cpu_ms": float}, ...one per split]}}
Run with OMP_NUM_THREADS=1 so every peer fits on one core, like the wasm engine.
"""
import json
import os
import resource
import sys
import time

import numpy as np
import sklearn
import xgboost
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler


def make_models(xgb_tree_method="auto"):
    return {
        # Standardised inputs, default L2 (C=1), lbfgs.
        "sklearn_logistic": make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
        # Library defaults (max_iter 100, lr 0.1, 31 leaves; early stopping only above 10k rows).
        "sklearn_hist_gb": HistGradientBoostingClassifier(random_state=0),
        # XGBoost 1.7 defaults spelled out: 100 trees, depth 6, eta 0.3, tree_method auto (exact greedy below
        # 4M rows); one thread. The bench asks for "hist" (XGBoost 2's default) on large one-hot tables, where
        # exact greedy took over 2 minutes a split.
        "xgboost": xgboost.XGBClassifier(
            n_estimators=100, max_depth=6, learning_rate=0.3, n_jobs=1, random_state=0, tree_method=xgb_tree_method
        ),
    }


def peak_rss_mb():
    # VmHWM, not getrusage's ru_maxrss: Linux keeps ru_maxrss across execve, so a process started by a forked
    # node process would report at least its parent's RSS at the fork.
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def read_matrix(base, path, rows, cols):
    return np.fromfile(os.path.join(base, path), dtype="<f8").reshape(rows, cols)


def main(in_path, out_path):
    base = os.path.dirname(os.path.abspath(in_path))
    with open(in_path) as f:
        spec = json.load(f)
    names = spec.get("models") or list(make_models())
    out = {name: [] for name in names}
    for split in spec["splits"]:
        n, m, d = split["n_train"], split["n_test"], split["d"]
        x_train = read_matrix(base, split["x_train"], n, d)
        y_train = np.fromfile(os.path.join(base, split["y_train"]), dtype=np.uint8).astype(np.int64)
        x_test = read_matrix(base, split["x_test"], m, d) if m > 0 else None
        models = make_models(spec.get("xgb_tree_method") or "auto")
        for name in names:
            model = models[name]
            t0 = time.perf_counter()
            c0 = time.process_time()
            model.fit(x_train, y_train)
            fit_ms = (time.perf_counter() - t0) * 1000.0
            # CPU time of the fit: less disturbed than wall time by other load on a shared machine
            fit_cpu_ms = (time.process_time() - c0) * 1000.0
            p = model.predict_proba(x_test)[:, list(model.classes_).index(1)].tolist() if m > 0 else []
            out[name].append({"p": p, "fit_ms": fit_ms, "fit_cpu_ms": fit_cpu_ms})
    versions = {"python": sys.version.split()[0], "sklearn": sklearn.__version__, "xgboost": xgboost.__version__}
    peak = peak_rss_mb()
    with open(out_path, "w") as f:
        json.dump({"versions": versions, "peak_rss_mb": peak, "models": out}, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
