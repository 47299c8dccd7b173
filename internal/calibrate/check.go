package calibrate

import (
	"fmt"
	"io"
	"os"

	"github.com/llmbench/llmbench/internal/atomicfile"
	"github.com/llmbench/llmbench/internal/host"
)

// Check checks c as `llmbench calibrate` takes it — at least one load of
// 1..max streams, timings not negative, at least two tokens, a rule and
// a repetition count that run something, at most max requests in a
// repetition — and raises this host's open-file limit for each load
// (the simulator is another process, with its own). It returns each
// load's requests per repetition (Rule.RequestsPerRepetition). Errors
// name the command's flags; a *host.FileLimitError is the host's, not
// the settings'.
func (c *Config) Check(max int) ([]int, error) {
	if len(c.Streams) == 0 || c.TTFT < 0 || c.ITL < 0 {
		return nil, fmt.Errorf("--streams needs at least one load, --ttft and --itl must not be negative")
	}
	if c.Tokens < 2 { // one token has no inter-token gap: the ITL error would have no figure
		return nil, fmt.Errorf("--tokens %d: want at least 2 (the ITL error needs a gap between two tokens)", c.Tokens)
	}
	if c.Rule.Requests < 1 || c.Repeat < 1 || c.Rule.MinTime < 0 {
		return nil, fmt.Errorf("--requests and --repeat need at least 1, --min-time must not be negative")
	}
	perRep := make([]int, len(c.Streams))
	for i, n := range c.Streams {
		if n < 1 || n > max {
			return nil, fmt.Errorf("--streams %d: want 1..%d", n, max)
		}
		if err := host.EnsureFileLimit(n); err != nil {
			return nil, err
		}
		perRep[i] = c.Rule.RequestsPerRepetition(n, c.Nominal())
		if perRep[i] > max {
			return nil, fmt.Errorf("--streams %d with --min-time %v at %v per request needs %d requests per repetition, more than %d; lower --min-time or raise --ttft/--itl",
				n, c.Rule.MinTime, c.Nominal(), perRep[i], max)
		}
	}
	return perRep, nil
}

// Save writes the calibration to path (WriteJSON, through atomicfile:
// the path holds the old file or the whole new one).
func Save(path string, c *Calibration) error {
	return atomicfile.Write(path, saveMode, func(w io.Writer) error { return WriteJSON(w, c) })
}

// saveMode is the mode Save gives the file: a calibration holds no
// server text, unlike a result (report.FileMode).
const saveMode os.FileMode = 0o644
