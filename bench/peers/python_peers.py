# Python peers for the bench: scikit-learn LogisticRegression, HistGradientBoosting and XGBoost on given splits.
"""Usage: python_peers.py IN.json OUT.json

IN:  {"splits": [{"x_train": [[...]], "y_train": [0,1,...], "x_test": [[...]]}, ...]}
OUT: {"versions": {...}, "models": {name: [{"p": [...], "fit_ms": float}, ...one per split]}}
Run with OMP_NUM_THREADS=1 so every peer fits on one core, like the wasm engine.
"""
import json
import sys
import time

import numpy as np
import sklearn
import xgboost
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler


def make_models():
    return {
        # Standardised inputs, default L2 (C=1), lbfgs.
        "sklearn_logistic": make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
        # Library defaults (max_iter 100, lr 0.1, 31 leaves; early stopping only above 10k rows).
        "sklearn_hist_gb": HistGradientBoostingClassifier(random_state=0),
        # XGBoost 1.7 defaults spelled out: 100 trees, depth 6, eta 0.3, tree_method auto; one thread.
        "xgboost": xgboost.XGBClassifier(
            n_estimators=100, max_depth=6, learning_rate=0.3, n_jobs=1, random_state=0
        ),
    }


def main(in_path, out_path):
    with open(in_path) as f:
        splits = json.load(f)["splits"]
    out = {name: [] for name in make_models()}
    for split in splits:
        x_train = np.asarray(split["x_train"], dtype=np.float64)
        y_train = np.asarray(split["y_train"], dtype=np.int64)
        x_test = np.asarray(split["x_test"], dtype=np.float64)
        for name, model in make_models().items():
            t0 = time.perf_counter()
            model.fit(x_train, y_train)
            fit_ms = (time.perf_counter() - t0) * 1000.0
            p = model.predict_proba(x_test)[:, list(model.classes_).index(1)]
            out[name].append({"p": p.tolist(), "fit_ms": fit_ms})
    versions = {"python": sys.version.split()[0], "sklearn": sklearn.__version__, "xgboost": xgboost.__version__}
    with open(out_path, "w") as f:
        json.dump({"versions": versions, "models": out}, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
