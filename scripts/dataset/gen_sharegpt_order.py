#!/usr/bin/python3
"""Record the order vLLM's ShareGPTDataset walks a ShareGPT file in.

    /usr/bin/python3 scripts/dataset/gen_sharegpt_order.py testdata/dataset/sharegpt_sample.json > testdata/dataset/sharegpt_sample.order.json

For each seed: the load filter (a "conversations" list of >= 2 turns), then
random.seed(seed); random.shuffle(data), as vLLM's load_data does; output is
the list of the kept entries' positions in the file, in walk order.
"""
import json
import random
import sys


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        raw = json.load(f)
    kept = [i for i, e in enumerate(raw) if "conversations" in e and len(e["conversations"]) >= 2]
    out = {}
    for seed in [0, 1, 42]:
        order = list(kept)
        random.seed(seed)
        random.shuffle(order)
        out[str(seed)] = order
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
