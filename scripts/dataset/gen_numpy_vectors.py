#!/usr/bin/python3
"""Generate golden vectors for internal/numpyrand.

Run with Debian's NumPy (apt-get install -y python3-numpy):

    /usr/bin/python3 scripts/dataset/gen_numpy_vectors.py > testdata/dataset/numpy_vectors.json

The vectors record (among others) what numpy.random.default_rng(seed) produces for the
draws vLLM's random dataset makes (vllm/benchmarks/datasets: get_sampling_params,
RandomDataset.get_prefix, gen_prompt_decode_to_target_len), plus the raw
SeedSequence and PCG64 outputs underneath, so the Go port can be checked
layer by layer. Only NumPy is used; vLLM is not needed.
"""
import json
import math
import sys

import numpy as np
from numpy.random import PCG64, SeedSequence

SEEDS = [0, 1, 42, 12345, 2**40 + 7]


def bounds(input_len, output_len, rr_in, rr_out, num_special):
    # Same arithmetic as vLLM's get_sampling_params.
    real_input_len = max(0, int(input_len) - num_special)
    input_low = math.floor(real_input_len * (1 - rr_in))
    input_high = math.ceil(real_input_len * (1 + rr_in))
    output_low = math.floor(output_len * (1 - rr_out))
    output_high = math.ceil(output_len * (1 + rr_out))
    output_low = max(output_low, 1)
    output_high = max(output_high, 1)
    return input_low, input_high, output_low, output_high


def random_case(seed, n, input_len, output_len, rr_in, rr_out, num_special,
                vocab_size, num_allowed, prefix_len, pads):
    rng = np.random.default_rng(seed)
    il, ih, ol, oh = bounds(input_len, output_len, rr_in, rr_out, num_special)
    input_lens = rng.integers(il, ih + 1, size=n)
    output_lens = rng.integers(ol, oh + 1, size=n)
    offsets = rng.integers(0, vocab_size, size=n)
    prefix = rng.integers(0, num_allowed, size=prefix_len) if prefix_len > 0 else np.array([], dtype=np.int64)
    pad_draws = [rng.integers(0, vocab_size, size=k).tolist() for k in pads]
    return {
        "seed": seed,
        "num_requests": n,
        "input_len": input_len,
        "output_len": output_len,
        "range_ratio_input": rr_in,
        "range_ratio_output": rr_out,
        "num_special": num_special,
        "vocab_size": vocab_size,
        "num_allowed": num_allowed,
        "prefix_len": prefix_len,
        "input_low": il,
        "input_high": ih,
        "output_low": ol,
        "output_high": oh,
        "input_lens": input_lens.tolist(),
        "output_lens": output_lens.tolist(),
        "offsets": offsets.tolist(),
        "prefix_indices": prefix.tolist(),
        "pads": list(pads),
        "pad_draws": pad_draws,
    }


def main():
    out = {"numpy_version": np.__version__, "seed_states": [], "integer_calls": [], "random_cases": []}
    for seed in SEEDS:
        out["seed_states"].append({
            "seed": seed,
            "state": SeedSequence(seed).generate_state(8).tolist(),
            "raw": [int(x) for x in PCG64(seed).random_raw(6)],
        })
    # Mixed call sequences: 32-bit (Lemire32, with the half-word buffer
    # carried across calls), 64-bit ranges, single-value ranges.
    call_plan = [
        (0, 10, 7), (0, 50257, 5), (5, 6, 3), (-100, 100, 4), (0, 2**40, 3),
        (0, 2**32, 3), (1, 2**32, 2), (-(2**62), 2**62, 3), (0, 3, 9), (1000, 1001, 1),
        (0, 128000, 11), (0, 151643, 2),
    ]
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        calls = []
        for low, high, size in call_plan:
            calls.append({"low": low, "high": high, "size": size,
                          "out": rng.integers(low, high, size=size).tolist()})
        out["integer_calls"].append({"seed": seed, "calls": calls})
    # vLLM random-dataset draws. Vocabularies: GPT-2 (50257, 1 special),
    # Mistral-7B (32000, 3 specials, adds BOS), Llama-3 (128000 base vocab),
    # Qwen3 (151643).
    tokenizers = [
        (50257, 50256, 0),
        (32000, 31997, 1),
        (128000, 128000, 0),
        (151643, 151643, 0),
    ]
    for seed in [0, 1, 42]:
        for vocab, allowed, special in tokenizers:
            for rr in [(0.0, 0.0), (0.5, 0.5), (0.25, 0.9)]:
                for n, il, ol, pl in [(10, 1024, 128, 0), (100, 256, 64, 16), (7, 3, 1, 0)]:
                    out["random_cases"].append(random_case(
                        seed, n, il, ol, rr[0], rr[1], special, vocab, allowed, pl, [1, 3, 2]))
    # NumPy's legacy global RNG (np.random.seed + np.random.randint), which
    # vLLM's prefix_repetition dataset draws its token ids from.
    out["legacy_calls"] = []
    for seed in [0, 1, 42, 2**32 - 1]:
        np.random.seed(seed)
        calls = []
        for low, high, size in [(0, 50257, 6), (0, 32000, 5), (0, 2, 9), (3, 4, 2), (0, 151643, 4), (0, 2**32, 2), (-7, 1000, 3)]:
            calls.append({"low": low, "high": high, "size": size,
                          "out": np.random.randint(low, high, size=size).tolist()})
        out["legacy_calls"].append({"seed": seed, "calls": calls})
    json.dump(out, sys.stdout, indent=None, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
