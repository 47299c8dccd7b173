package worker

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"iter"
)

// excluded are the settings that do not define the workload: output,
// observability, exit policy, cost, and the worker settings themselves.
// All others enter the config hash.
var excluded = map[string]bool{
	"worker-index": true, "worker-count": true, "run-id": true, "start-at": true,
	"save-result": true, "save-detailed": true, "append-result": true, "save-records": true,
	"result-dir": true, "result-filename": true, "disable-tqdm": true, "help": true,
	"metrics-addr": true, "metrics-linger": true, "pushgateway": true,
	"config": true, "no-config": true, "course": true, "print-command": true,
	"cloudwatch": true, "cloudwatch-wait": true, "price-per-hour": true, "instance-type": true,
	"instance-count": true, "profile": true, "no-instance-metadata": true,
	"max-error-rate": true, "latency-from-intended": true, "html": true, "require-valid": true,
	"no-steady-state": true, "steady-state-threshold": true, "steady-state-min-window": true,
}

// ConfigHash hashes the name and value of every setting that defines the
// workload (given or default) in the order settings yields them — the
// command line's flags in name order — as the first 16 hex digits of a
// SHA-256 (docs/distributed.md, "What a worker saves"): workers started with
// the same workload get the same hash, whatever their output settings.
func ConfigHash(settings iter.Seq2[string, string]) string {
	h := sha256.New()
	for name, value := range settings {
		if !excluded[name] {
			fmt.Fprintf(h, "%s=%s\n", name, value)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
