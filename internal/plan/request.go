package plan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/llmbench/llmbench/internal/atomicfile"
	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/report"
)

// Request is a plan as `llmbench plan` is asked for it: the sweep files,
// the demand and the prices as given, and the settings. Its errors name
// the command's flags: every one is a fault of what was given.
type Request struct {
	// Sweeps are the sweep files' paths, one per candidate.
	Sweeps []string
	Demand DemandSource
	// Prices is --price-per-hour as given (ParsePrices).
	Prices string
	Config Config
}

// SweepReader reads a sweep file (savedfile.ReadSweep, which this
// package cannot import: savedfile reads plan files too).
type SweepReader func(path string) (*capacity.Sweep, error)

// Plan checks r, makes the demand, reads and prices the sweeps (read),
// labels them as compare does (report.SweepCandidates) and plans; a plan
// without a recommendation is an error (NotPlanned).
func (r *Request) Plan(read SweepReader) (*Plan, error) {
	if t := r.Config.TargetUtilisation; !(t > 0 && t <= 1) {
		return nil, fmt.Errorf("--target-utilisation %v: want more than 0, at most 1", t)
	}
	d, err := r.Demand.Demand()
	if err != nil {
		return nil, err
	}
	prices, err := ParsePrices(r.Prices)
	if err == nil {
		err = prices.Check(len(r.Sweeps))
	}
	if err != nil {
		return nil, err
	}
	files := make([]*report.SweepFile, len(r.Sweeps))
	for i, p := range r.Sweeps {
		sw, err := read(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("sweep file %s does not exist", p)
		}
		if err != nil {
			return nil, err
		}
		prices.Apply(i, sw)
		files[i] = &report.SweepFile{Path: p, Sweep: sw}
	}
	cands := report.SweepCandidates(files)
	in := make([]Input, len(files))
	for i := range files {
		in[i] = Input{Candidate: cands[i], Sweep: files[i].Sweep}
	}
	p, err := Make(in, d, r.Config)
	if err == nil {
		err = NotPlanned(p)
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Save writes p as dir/FileName(date) (WriteJSON, through atomicfile,
// mode report.FileMode as every saved file), making dir when missing as
// run and sweep make theirs, and returns the path.
func Save(dir, date string, p *Plan) (string, error) {
	var js bytes.Buffer
	if err := WriteJSON(&js, p); err != nil { // before the folder is made
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, FileName(date))
	if err := atomicfile.Write(path, report.FileMode, func(w io.Writer) error { _, err := w.Write(js.Bytes()); return err }); err != nil {
		return "", err
	}
	return path, nil
}
