#!/usr/bin/python3
"""Builds the client_queue conformance case from failures_concurrency.

failures_concurrency.expected.json was made by vLLM's own code (serve.py of
2026-08-13), before vLLM added client queue time (PR #54136). This script
adds per-request queue times to that case's input and extends vLLM's
expected output with what the newer serve.py adds, computed here with NumPy
exactly as that code does (np.mean/median/std/percentile over the
successful requests, x 1000; see testdata/conformance/metrics/README.md):

  * "latencies" (every request's latency) after "itls" and "queue_times"
    (every request's queue time) after "start_times";
  * mean/median/std/p<p> keys for client_queue_time and
    e2el_including_client_queue after the e2el keys;
  * the "Client-side Queueing" and "Queue-inclusive End-to-end Latency"
    table sections before the closing line.

Every other key and line is vLLM's own. Run with Debian's python3 (needs
python3-numpy) from this folder: /usr/bin/python3 gen_client_queue.py
"""

import json

import numpy as np

BASE = "failures_concurrency"
CASE = "client_queue"
# One queue time per request; the failed requests (indices 2, 5, 9) have
# large ones so that counting them would change every statistic.
QUEUE = [0.0, 0.0125, 0.9, 0.031, 0.4, 1.25, 0.077, 0.1, 0.2134, 2.5, 0.0, 0.0421]
PERCENTILE_METRICS = "ttft,tpot,itl,e2el,client_queue_time,e2el_including_client_queue"


def fmt_line(label, value):
    return "{:<40} {:<10.2f}".format(label, value)


def pct_label(p):
    return str(int(p)) if float(p).is_integer() else str(p)


def stats(values, pcts):
    vals = values or 0
    out = [
        ("mean", np.mean(vals) * 1000),
        ("median", np.median(vals) * 1000),
        ("std", np.std(vals) * 1000),
    ]
    out += [("p" + pct_label(p), np.percentile(vals, p) * 1000) for p in pcts]
    return out


def main():
    with open(BASE + ".input.json") as f:
        inp = json.load(f)
    with open(BASE + ".expected.json") as f:
        exp = json.load(f)
    reqs = inp["requests"]
    assert len(reqs) == len(QUEUE)
    for r, q in zip(reqs, QUEUE):
        r["queue_time"] = q
    inp["params"]["percentile_metrics"] = PERCENTILE_METRICS
    inp["description"] = (
        "failures_concurrency with client queue times (--max-concurrency 4, "
        "finite rate): latencies and queue_times arrays, client_queue_time "
        "and e2el_including_client_queue over successful requests only."
    )
    pcts = [float(p) for p in inp["params"].get("metric_percentiles", "99").split(",")]

    ok = [r for r in reqs if r["success"]]
    queue = [r["queue_time"] for r in ok]
    incl = [r["latency"] + r["queue_time"] for r in ok]

    res = {}
    for k, v in exp["save_result"].items():
        res[k] = v
        if k == "itls":
            res["latencies"] = [r["latency"] for r in reqs]
        if k == "start_times":
            res["queue_times"] = [r["queue_time"] for r in reqs]
        if k == "p" + pct_label(pcts[-1]) + "_e2el_ms":
            for name, vals in (("client_queue_time", queue), ("e2el_including_client_queue", incl)):
                for stat, val in stats(vals, pcts):
                    res[stat + "_" + name + "_ms"] = float(val)

    table = exp["console_table"][:-1]
    for header, short, vals in (
        ("Client-side Queueing", "Client Queue Time", queue),
        ("Queue-inclusive End-to-end Latency", "E2EL incl. Client Queue", incl),
    ):
        table.append("{:-^50}".format(header))
        st = dict(stats(vals, pcts))
        table.append(fmt_line("Mean " + short + " (ms):", st["mean"]))
        table.append(fmt_line("Median " + short + " (ms):", st["median"]))
        for p in pcts:
            table.append(fmt_line("P" + pct_label(p) + " " + short + " (ms):", st["p" + pct_label(p)]))
    table.append(exp["console_table"][-1])

    exp["case"] = CASE
    exp["vllm_source"] = (
        exp["vllm_source"]
        + "; client-queue keys and sections added by gen_client_queue.py"
        + " (NumPy, following vLLM PR #54136)"
    )
    exp["console_table"] = table
    exp["save_result"] = res
    with open(CASE + ".input.json", "w") as f:
        json.dump(inp, f, indent=1)
        f.write("\n")
    with open(CASE + ".expected.json", "w") as f:
        json.dump(exp, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
