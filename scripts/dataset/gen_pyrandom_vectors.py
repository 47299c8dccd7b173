#!/usr/bin/python3
"""Generate golden vectors for internal/pyrand.

    /usr/bin/python3 scripts/dataset/gen_pyrandom_vectors.py > testdata/dataset/pyrandom_vectors.json

Records what CPython's random module does for the calls vLLM's file-based
datasets make: random.seed(seed); random.shuffle(data) in load_data, and
random.seed(seed); random.choice(samples) repeated in
maybe_oversample_requests.
"""
import json
import random
import sys

SEEDS = [0, 1, 42, -5, 2**40 + 7]


def main():
    out = {"python_version": sys.version.split()[0], "cases": []}
    for seed in SEEDS:
        random.seed(seed)
        raw = [random.getrandbits(32) for _ in range(5)]
        shuffles = {}
        for n in [1, 2, 10, 57, 1000]:
            random.seed(seed)
            x = list(range(n))
            random.shuffle(x)
            shuffles[str(n)] = x
        choices = {}
        for n in [1, 3, 50, 1000]:
            random.seed(seed)
            choices[str(n)] = [random.choice(range(n)) for _ in range(20)]
        out["cases"].append({"seed": seed, "raw32": raw, "shuffles": shuffles, "choices": choices})
    json.dump(out, sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
