package report

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/llmbench/llmbench/internal/load"
)

// Banner is what a run says of its load before it starts: vLLM's three
// lines of the arrival process and the concurrency cap, or for a closed
// loop (ClosedLoop set) what the users do.
type Banner struct {
	Arrivals       load.Arrivals
	MaxConcurrency int // 0: no cap ("None")
	ClosedLoop     *ClosedLoop
}

// Write prints the banner as vLLM prints it before the run. Python's
// str() of a float is its repr ("inf", "10.0").
func (b Banner) Write(w io.Writer) {
	if c := b.ClosedLoop; c != nil {
		// A closed loop has no request rate or burstiness: vLLM's lines
		// would say "inf" and "Poisson process" of a run that had
		// neither (issue 29).
		fmt.Fprintf(w, "Closed loop: %s\n", c.Words())
		fmt.Fprintf(w, "Maximum request concurrency: %d\n", c.Users.Users)
		return
	}
	a := &b.Arrivals
	burstKind := "Gamma distribution"
	if a.Burstiness == 1 {
		burstKind = "Poisson process"
	}
	conc := "None"
	if b.MaxConcurrency > 0 {
		conc = strconv.Itoa(b.MaxConcurrency)
	}
	if a.RampStrategy != "" {
		fmt.Fprintf(w, "Traffic ramp-up strategy: %s.\n", a.RampStrategy)
		fmt.Fprintf(w, "Will increase RPS from %d to %d RPS over the duration of the benchmark.\n", a.RampStartRPS, a.RampEndRPS)
	} else {
		fmt.Fprintf(w, "Traffic request rate: %s\n", PyRepr(a.Rate))
	}
	fmt.Fprintf(w, "Burstiness factor: %s (%s)\n", PyRepr(a.Burstiness), burstKind)
	fmt.Fprintf(w, "Maximum request concurrency: %s\n", conc)
}

// ClosedLoop is a --users run as the banner and the result describe it.
type ClosedLoop struct {
	Users *load.Users
	// Duration bounds the run (0: it ends after Prompts requests).
	Duration time.Duration
	// Prompts is the dataset's prompt count, which the users cycle.
	Prompts int
}

// Words describes the run: "16 users, think time 1s-3s, 5 started per
// second, for 20s (the first 5s left out)".
func (c ClosedLoop) Words() string {
	u := c.Users
	s := fmt.Sprintf("%d users", u.Users)
	if u.Think.Max > 0 {
		s += ", think time " + u.Think.String()
	} else {
		s += ", no think time"
	}
	if u.SpawnRate > 0 {
		s += ", " + strconv.FormatFloat(u.SpawnRate, 'f', -1, 64) + " started per second"
	} else {
		s += ", all started at once"
	}
	if c.Duration > 0 {
		s += ", for " + c.Duration.String()
		if u.Warmup > 0 {
			s += " (the first " + u.Warmup.String() + " left out)"
		}
	} else {
		s += fmt.Sprintf(", %d requests", c.Prompts)
	}
	return s
}

// Object is the result's llmbench.closed_loop object: what the run was
// (vLLM's keys cannot say it) and what num_prompts then counts, sent
// being the requests of the timed run.
func (c ClosedLoop) Object(sent int) *Object {
	u := c.Users
	x := NewObject()
	x.Set("users", u.Users)
	x.Set("think_time", u.Think.String())
	x.Set("think_time_min_s", u.Think.Min.Seconds())
	x.Set("think_time_max_s", u.Think.Max.Seconds())
	x.Set("spawn_rate", u.SpawnRate)
	x.Set("duration_s", c.Duration.Seconds())
	x.Set("warmup_duration_s", u.Warmup.Seconds())
	x.Set("dataset_prompts", c.Prompts)
	x.Set("num_prompts_note", fmt.Sprintf("num_prompts is the %d requests sent in the timed run; the users took the dataset's %d prompts in turn, cycling them", sent, c.Prompts))
	return x
}
