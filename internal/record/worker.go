package record

// WorkerInfo identifies one worker's share of a run split across
// processes (docs/distributed.md), or, with Merged, the union of all the
// shares. It is written in the records file's header; files without it
// (single-process runs, files from before distributed runs) read as
// before.
type WorkerInfo struct {
	// RunID names the distributed run; every worker of one run carries
	// the same id (llmbench run --run-id, by default derived from the seed,
	// --start-at and ConfigHash).
	RunID string `json:"run_id"`
	// ConfigHash is a hash of the flags that define the workload (dataset,
	// load, backend, ...; not the output or worker flags): the workers of
	// one run carry the same hash.
	ConfigHash string `json:"config_hash"`
	// Index is this worker's index, 0..Count-1 (Kubernetes'
	// JOB_COMPLETION_INDEX); unused when Merged.
	Index int `json:"index"`
	// Count is the number of workers of the run (>= 1).
	Count int `json:"count"`
	// Merged is true for the output of llmbench merge: the records of all
	// Count workers on one timeline.
	Merged bool `json:"merged,omitempty"`
	// StartAt is --start-at, the wall-clock instant every worker waited
	// for before dispatch, as RFC 3339 with nanoseconds; "" = none.
	StartAt string `json:"start_at,omitempty"`
	// Clock is the worker's clock-synchronisation state when the run
	// started; nil when unknown (not Linux, or not read).
	Clock *ClockSync `json:"clock,omitempty"`
}

// ClockSync is the kernel's view of how well the wall clock is
// synchronised (NTP or chrony discipline, read with adjtimex(2)). Records
// of several workers share one timeline only as well as their clocks
// agree: two synchronised clocks differ by at most the sum of their
// MaxErrorUS.
type ClockSync struct {
	// Source names where the figures come from ("adjtimex").
	Source string `json:"source"`
	// Synced is false when the kernel marks the clock unsynchronised
	// (STA_UNSYNC: no NTP/chrony discipline).
	Synced bool `json:"synced"`
	// OffsetUS is the remaining offset the kernel is slewing out, in
	// microseconds.
	OffsetUS int64 `json:"offset_us"`
	// MaxErrorUS and EstErrorUS are the kernel's maximum and estimated
	// error of the wall clock, in microseconds.
	MaxErrorUS int64 `json:"max_error_us"`
	EstErrorUS int64 `json:"est_error_us"`
}
