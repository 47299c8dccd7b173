// Package merge combines the per-request records of the workers of one
// distributed run into the records of a single run, on one wall-clock
// timeline, so that the metrics of the union are computed by the same
// code, from the same kind of input, as those of a single process
// (docs/distributed.md). It never averages figures: percentiles, peaks
// and throughputs are recomputed from the union by internal/metrics.
//
// Merge is pure: it reads no files and refuses inputs that do not make
// one run (different run ids or workloads, a missing or duplicate
// worker, records without a wall-clock anchor). files.go finds and reads
// the workers' records (folders, a result's records beside it);
// sweep.go does the same step by step for the workers of a sweep and
// analyses the merged steps as sweep does. run.go and runsweep.go are
// the command without its flags (Rules.Run): read, merge, print, write;
// the figures of records and how a user's file is written come from the
// command (Rules), which maps InputError to its exit code.
package merge

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/record"
)

// Input is one worker's records file as read: its header (worker block
// and wall-clock anchor), its final params (from the closing line) and
// its records.
type Input struct {
	// Name names the input in messages (its path).
	Name    string
	Header  record.Header
	Params  record.Params
	Records []record.Record
}

// Result is the merged run.
type Result struct {
	// Params are worker 0's params with the union's duration and
	// interrupted flag.
	Params record.Params
	// Records are every worker's records, in index order, with StartTime
	// and IntendedTime re-based onto Anchor.
	Records []record.Record
	// Anchor is the earliest worker's anchor: the merged clock's origin.
	Anchor record.Anchor
	// Worker describes the merged run (Merged set, Index 0).
	Worker record.WorkerInfo
	// StartSpread is the latest worker's anchor minus the earliest's:
	// how far apart the workers began dispatch.
	StartSpread time.Duration
	// Unfinished lists the workers whose records file had no closing
	// line (killed): their duration is estimated.
	Unfinished []int
	// Unsynced lists the workers whose kernel reported an unsynchronised
	// clock (record.ClockSync); ClockBound is the sum of the two largest
	// maximum errors the synchronised workers reported: a bound on how
	// far apart their clocks were (0 when fewer than two reported).
	Unsynced   []int
	ClockBound time.Duration
}

// Merge checks that inputs are the complete set of workers of one run and
// merges them:
//
//   - every input carries a worker block (record.WorkerInfo) and a
//     wall-clock anchor; all share the run id, the config hash and the
//     worker count N, and the indices are 0..N-1, each exactly once;
//   - the merged clock's origin is the earliest anchor A0; worker w's
//     records move by off_w = time.Duration(A_w - A0).Seconds() seconds
//     (StartTime and IntendedTime; durations and gaps are unchanged), so
//     the earliest worker's times are kept bit for bit;
//   - the duration runs from A0 to the latest worker's end,
//     max_w(off_w + duration_w): vLLM's benchmark duration for the union
//     (from just before the first dispatch to the end of the last
//     request).
func Merge(inputs []Input) (*Result, error) {
	first, err := check(inputs)
	if err != nil {
		return nil, err
	}
	a0 := inputs[0].Header.Start.UnixNano
	last := a0
	for i := range inputs {
		a0 = min(a0, inputs[i].Header.Start.UnixNano)
		last = max(last, inputs[i].Header.Start.UnixNano)
	}
	res := &Result{
		Params:      first.Params,
		Anchor:      record.Anchor{UnixNano: a0},
		Worker:      *first.Header.Worker,
		StartSpread: time.Duration(last - a0),
	}
	res.Worker.Index, res.Worker.Merged, res.Worker.Clock = 0, true, nil
	res.Params.DurationS, res.Params.Interrupted, res.Params.Unfinished = 0, false, false
	res.Params.RPSChangeEvents = nil
	var seen record.Indices
	for i := range inputs {
		in := &inputs[i]
		for j := range in.Records {
			if prev, dup := seen.Add(in.Records[j].Index, i); dup {
				return nil, fmt.Errorf("request %d is in the records of %s and %s: the workers did not split one workload", in.Records[j].Index, inputs[prev].Name, in.Name)
			}
		}
	}
	for i := range inputs {
		in := &inputs[i]
		off := time.Duration(in.Header.Start.UnixNano - a0).Seconds()
		res.Params.DurationS = max(res.Params.DurationS, off+in.Params.DurationS)
		// Workers carry the run's num_prompts; one inferred from a
		// worker's own records (a file without it) covers only its share.
		if n := in.Params.NumPrompts; n != nil && (res.Params.NumPrompts == nil || *n > *res.Params.NumPrompts) {
			res.Params.NumPrompts = n
		}
		res.Params.Interrupted = res.Params.Interrupted || in.Params.Interrupted
		if in.Params.Unfinished {
			res.Unfinished = append(res.Unfinished, in.Header.Worker.Index)
		}
		for _, r := range in.Records {
			r.StartTime += off
			if r.IntendedTime != nil {
				t := *r.IntendedTime + off
				r.IntendedTime = &t
			}
			res.Records = append(res.Records, r)
		}
	}
	res.Unsynced, res.ClockBound = clocks(inputs)
	slices.Sort(res.Unfinished)
	slices.SortStableFunc(res.Records, func(a, b record.Record) int { return cmp.Compare(a.Index, b.Index) })
	return res, nil
}

// check verifies that inputs are the workers 0..N-1 of one run and
// returns worker 0.
func check(inputs []Input) (*Input, error) {
	if len(inputs) == 0 {
		return nil, errors.New("no inputs to merge")
	}
	for i := range inputs {
		in := &inputs[i]
		switch w := in.Header.Worker; {
		case w == nil:
			return nil, fmt.Errorf("%s is not a worker's records (its header has no run id): run each worker with --worker-count N", in.Name)
		case w.Merged:
			return nil, fmt.Errorf("%s is already a merged run: merge the workers' own records files", in.Name)
		case in.Header.Start == nil:
			return nil, fmt.Errorf("%s has no wall-clock anchor: its records cannot be placed on a common timeline", in.Name)
		}
	}
	members := make([]Member, len(inputs))
	for i := range inputs {
		members[i] = Member{Name: inputs[i].Name, Worker: inputs[i].Header.Worker}
	}
	first, err := Check(members)
	if err != nil {
		return nil, err
	}
	return &inputs[first], nil
}

// Member is one part of a distributed run as Check sees it: a worker's
// records file, or a worker's sweep file.
type Member struct {
	// Name names the member in messages (its path).
	Name string
	// Worker is its worker block; not nil.
	Worker *record.WorkerInfo
}

// Check verifies that members are the workers 0..N-1 of one run — one
// run id, one config hash, one worker count, each index exactly once —
// and returns the position of worker 0. Run merges and sweep merges
// refuse with the same words.
func Check(members []Member) (int, error) {
	if len(members) == 0 {
		return 0, errors.New("no inputs to merge")
	}
	ref := &members[0]
	byIndex := map[int]int{}
	for i := range members {
		in, w, rw := &members[i], members[i].Worker, ref.Worker
		switch {
		case w.RunID != rw.RunID:
			return 0, fmt.Errorf("results from different runs: %s is run %s, %s is run %s", ref.Name, rw.RunID, in.Name, w.RunID)
		case w.ConfigHash != rw.ConfigHash:
			return 0, fmt.Errorf("run %s: %s and %s ran different workloads (config hash %s, %s)", w.RunID, ref.Name, in.Name, rw.ConfigHash, w.ConfigHash)
		case w.Count != rw.Count:
			return 0, fmt.Errorf("run %s: %s says %d workers, %s says %d", w.RunID, ref.Name, rw.Count, in.Name, w.Count)
		case w.Index < 0 || w.Index >= w.Count:
			return 0, fmt.Errorf("%s: worker index %d is outside 0..%d", in.Name, w.Index, w.Count-1)
		}
		if prev, dup := byIndex[w.Index]; dup {
			return 0, fmt.Errorf("run %s: worker %d appears twice (%s and %s)", w.RunID, w.Index, members[prev].Name, in.Name)
		}
		byIndex[w.Index] = i
	}
	var missing []string
	for i := range ref.Worker.Count {
		if _, ok := byIndex[i]; !ok {
			missing = append(missing, fmt.Sprint(i))
		}
	}
	if len(missing) > 0 {
		return 0, fmt.Errorf("run %s: worker %s of 0..%d missing: merge needs every worker's records", ref.Worker.RunID, strings.Join(missing, ", "), ref.Worker.Count-1)
	}
	return byIndex[0], nil
}

// clocks reads the workers' clock-synchronisation states (see
// Result.Unsynced and Result.ClockBound; docs/distributed.md).
func clocks(inputs []Input) (unsynced []int, bound time.Duration) {
	var errs []int64
	unsynced = []int{} // a list in the result JSON, never null
	for i := range inputs {
		c, w := inputs[i].Header.Worker.Clock, inputs[i].Header.Worker.Index
		switch {
		case c == nil:
		case !c.Synced:
			unsynced = append(unsynced, w)
		default:
			errs = append(errs, c.MaxErrorUS)
		}
	}
	slices.Sort(unsynced)
	if len(errs) >= 2 {
		slices.Sort(errs)
		bound = time.Duration(errs[len(errs)-1]+errs[len(errs)-2]) * time.Microsecond
	}
	return unsynced, bound
}
