# One scikit-learn HistGradientBoostingClassifier fit (library defaults, one thread) with native categorical
# columns, timed: the speed benches' second HGB figure beside the one-hot fit of python_peers.py.
"""Usage: hgb_native.py IN.json OUT.json

IN:  {"n": rows, "d": columns, "x": path, "y": path, "categorical": [bool per column]}
     x: float64 little-endian, row-major (n x d), categories as codes 0..k-1 and NaN for missing;
     y: uint8 0/1 (n). Paths are relative to IN.json.
OUT: {"fit_ms": float, "fit_cpu_ms": float, "n_iter": int, "sklearn": version}
Run with OMP_NUM_THREADS=1.
"""
import json
import os
import sys
import time

import numpy as np
import sklearn
from sklearn.ensemble import HistGradientBoostingClassifier


def main(in_path, out_path):
    base = os.path.dirname(os.path.abspath(in_path))
    with open(in_path) as f:
        spec = json.load(f)
    n, d = spec["n"], spec["d"]
    x = np.fromfile(os.path.join(base, spec["x"]), dtype="<f8").reshape(n, d)
    y = np.fromfile(os.path.join(base, spec["y"]), dtype=np.uint8).astype(np.int64)
    mask = np.array(spec["categorical"], dtype=bool)
    model = HistGradientBoostingClassifier(random_state=0, categorical_features=mask if mask.any() else None)
    t0 = time.perf_counter()
    c0 = time.process_time()
    model.fit(x, y)
    out = {
        "fit_ms": (time.perf_counter() - t0) * 1000.0,
        "fit_cpu_ms": (time.process_time() - c0) * 1000.0,
        "n_iter": int(model.n_iter_),
        "sklearn": sklearn.__version__,
    }
    with open(out_path, "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
