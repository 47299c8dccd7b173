# Regenerates numpy_golden.json with NumPy's legacy global RNG and the
# arithmetic of vllm bench serve's get_request (spec section 5.1/5.3).
# The gamma sampler's own vectors are internal/numpyrand/testdata's.
# Run with a python3 that has numpy (Debian: /usr/bin/python3 with
# python3-numpy):  /usr/bin/python3 gen_numpy.py > numpy_golden.json
import json
import numpy as np


def vllm_delays(n, rate, burstiness, seed, ramp=None, start=None, end=None):
    np.random.seed(seed)
    rates, delay_ts = [], []
    for i in range(n):
        if ramp:
            progress = i / max(n - 1, 1)
            if ramp == "linear":
                r = start + (end - start) * progress
            else:
                r = start * ((end / start) ** progress)
        else:
            r = rate
        rates.append(r)
        if r == float("inf"):
            delay_ts.append(0)
        elif burstiness == float("inf"):
            delay_ts.append(1.0 / r)
        else:
            theta = 1.0 / (r * burstiness)
            delay_ts.append(np.random.gamma(shape=burstiness, scale=theta))
    for i in range(1, len(delay_ts)):
        delay_ts[i] += delay_ts[i - 1]
    if ramp is None and delay_ts[-1] != 0:
        target = n / rate
        f = target / delay_ts[-1]
        delay_ts = [d * f for d in delay_ts]
    return [float(d) for d in delay_ts], [float(r) for r in rates]


def num(x):
    return "inf" if x == float("inf") else x


out = {"schedules": []}
for n, rate, b, seed, ramp, s, e in [
    (100, 10.0, 1.0, 0, None, None, None),
    (50, 2.5, 0.5, 1, None, None, None),
    (50, 4.0, 3.0, 42, None, None, None),
    (20, 8.0, float("inf"), 0, None, None, None),
    (10, float("inf"), 1.0, 0, None, None, None),
    (1, 3.0, 1.0, 9, None, None, None),
    (40, float("inf"), 1.0, 3, "linear", 1, 20),
    (40, float("inf"), 2.0, 3, "exponential", 2, 50),
    (30, float("inf"), float("inf"), 0, "linear", 5, 5),
]:
    d, r = vllm_delays(n, rate, b, seed, ramp, s, e)
    out["schedules"].append({"n": n, "rate": num(rate), "burstiness": num(b), "seed": seed,
                             "ramp": ramp or "", "start": s or 0, "end": e or 0,
                             "offsets": d, "rates": [num(x) for x in r]})
print(json.dumps(out, indent=1))
