#!/usr/bin/python3
"""Golden vectors for the whole random-dataset pipeline, with a toy tokenizer.

    /usr/bin/python3 scripts/dataset/gen_random_toy_vectors.py > testdata/dataset/random_toy_vectors.json

vLLM's RandomDataset.sample (vllm/benchmarks/datasets: get_sampling_params,
get_prefix, generate_token_sequence, gen_prompt_decode_to_target_len) is
restated here step for step, on NumPy's default_rng, with a small tokenizer
whose decode/re-encode round trip is lossy (greedy two-letter merges), so
truncation, random padding and the retry limit all happen. The Go test runs
llmbench's sampler with the same toy tokenizer and must produce the same
prompts. Only NumPy is needed.
"""
import json
import math
import random
import sys

import numpy as np

LETTERS = "abcdefghijklmnopqrstuvwxyz"
# ids 0..25: one letter; ids 26..285: two letters, first in a..j.
PIECES = list(LETTERS) + [LETTERS[i] + LETTERS[j] for i in range(10) for j in range(26)]
INDEX = {p: i for i, p in enumerate(PIECES)}


class ToyTokenizer:
    vocab_size = len(PIECES)
    all_special_ids = [0, 7]  # "a" is BOS, "h" another named special token

    def num_special_tokens_to_add(self):
        return 1

    def decode(self, ids):
        return "".join(PIECES[i] for i in ids)

    def encode(self, text, add_special_tokens=False):
        out = [0] if add_special_tokens else []
        i = 0
        while i < len(text):
            if text[i:i + 2] in INDEX:
                out.append(INDEX[text[i:i + 2]])
                i += 2
            else:
                out.append(INDEX[text[i]])
                i += 1
        return out


STATS = {"rounds": 0, "pad_tokens": 0}


def gen_prompt_decode_to_target_len(tok, seq, target, rng, max_retry=10):
    remain = max_retry
    mismatch = 0
    while True:
        STATS["rounds"] += 1
        prompt = tok.decode(seq)
        seq = tok.encode(prompt, add_special_tokens=False)
        if remain <= 0:
            if len(seq) != target:
                mismatch = len(seq) - target
            break
        if len(seq) == target:
            break
        elif len(seq) < target:
            STATS["pad_tokens"] += target - len(seq)
            seq.extend(rng.integers(0, tok.vocab_size, size=target - len(seq)).tolist())
        else:
            seq = seq[:target]
        remain -= 1
    return prompt, seq, mismatch


def sample(tok, seed, n, input_len, output_len, rr_in, rr_out, prefix_len):
    rng = np.random.default_rng(seed)
    num_special = int(tok.num_special_tokens_to_add())
    real_input_len = max(0, int(input_len) - num_special)
    input_low = math.floor(real_input_len * (1 - rr_in))
    input_high = math.ceil(real_input_len * (1 + rr_in))
    output_low = max(math.floor(output_len * (1 - rr_out)), 1)
    output_high = max(math.ceil(output_len * (1 + rr_out)), 1)
    input_lens = rng.integers(input_low, input_high + 1, size=n)
    output_lens = rng.integers(output_low, output_high + 1, size=n)
    offsets = rng.integers(0, tok.vocab_size, size=n)
    allowed = np.array(list(set(np.arange(tok.vocab_size)) - set(tok.all_special_ids)))
    prefix = []
    if prefix_len > 0:
        prefix = allowed[rng.integers(0, len(allowed), size=prefix_len)].tolist()
        _, prefix, _ = gen_prompt_decode_to_target_len(tok, prefix, prefix_len, rng)
    out = []
    for i in range(n):
        inner = allowed[(int(offsets[i]) + i + np.arange(int(input_lens[i]))) % len(allowed)].tolist()
        STATS["rounds"] = 0
        STATS["pad_tokens"] = 0
        prompt, final, _ = gen_prompt_decode_to_target_len(tok, prefix + inner, prefix_len + int(input_lens[i]), rng)
        out.append({"prompt": prompt, "prompt_len": len(final), "output_len": int(output_lens[i]),
                    "target": prefix_len + int(input_lens[i]), "rounds": STATS["rounds"], "pad_tokens": STATS["pad_tokens"]})
    return out


def legacy_decode_to_target(tok, seq, target, max_retry=10):
    # gen_prompt_decode_to_target_len with rng=None: padding from the
    # legacy global generator, np.random.randint.
    remain = max_retry
    while True:
        prompt = tok.decode(seq)
        seq = tok.encode(prompt, add_special_tokens=False)
        if remain <= 0 or len(seq) == target:
            break
        if len(seq) < target:
            seq.extend(np.random.randint(0, tok.vocab_size, size=target - len(seq)).tolist())
        else:
            seq = seq[:target]
        remain -= 1
    return prompt, seq


def prefix_repetition(tok, seed, n, prefix_len, suffix_len, num_prefixes, output_len):
    # PrefixRepetitionRandomDataset: random.seed and np.random.seed in
    # __init__, token ids from np.random.randint, shuffle with random.
    random.seed(seed)
    np.random.seed(seed)
    per = n // num_prefixes

    def exact(length):
        ids = np.random.randint(0, tok.vocab_size, size=length).tolist()
        return legacy_decode_to_target(tok, ids, length)[1]

    reqs = []
    for _ in range(num_prefixes):
        prefix = exact(prefix_len)
        for _ in range(per):
            combined = prefix + exact(suffix_len)
            reqs.append({"prompt": tok.decode(combined), "prompt_len": len(combined), "output_len": output_len})
    random.shuffle(reqs)
    return reqs


def main():
    tok = ToyTokenizer()
    cases = []
    for seed in [0, 1, 42]:
        for rr in [(0.0, 0.0), (0.5, 0.5), (0.2, 0.7)]:
            for prefix_len in [0, 6]:
                cfg = {"seed": seed, "num_requests": 25, "input_len": 40, "output_len": 16,
                       "range_ratio_input": rr[0], "range_ratio_output": rr[1], "prefix_len": prefix_len}
                cases.append({**cfg, "requests": sample(tok, seed, 25, 40, 16, rr[0], rr[1], prefix_len)})
    prefix_cases = []
    for seed in [0, 42]:
        cfg = {"seed": seed, "num_requests": 14, "prefix_len": 5, "suffix_len": 4, "num_prefixes": 3, "output_len": 7}
        prefix_cases.append({**cfg, "requests": prefix_repetition(tok, seed, 14, 5, 4, 3, 7)})
    json.dump({"numpy_version": np.__version__, "cases": cases, "prefix_repetition": prefix_cases},
              sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
