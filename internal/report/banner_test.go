package report

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/load"
)

// TestBanner: vLLM's lines before a run, Python's repr of the floats; a
// closed loop says what its users do instead (issue 29).
func TestBanner(t *testing.T) {
	users := &load.Users{Users: 16, Think: load.Think{Min: time.Second, Max: 3 * time.Second}, SpawnRate: 5, Warmup: 5 * time.Second}
	tests := []struct {
		name string
		b    Banner
		want string
	}{
		{"inf rate, no cap", Banner{Arrivals: load.Arrivals{Rate: math.Inf(1), Burstiness: 1}},
			"Traffic request rate: inf\nBurstiness factor: 1.0 (Poisson process)\nMaximum request concurrency: None\n"},
		{"gamma, capped", Banner{Arrivals: load.Arrivals{Rate: 10, Burstiness: 0.5}, MaxConcurrency: 32},
			"Traffic request rate: 10.0\nBurstiness factor: 0.5 (Gamma distribution)\nMaximum request concurrency: 32\n"},
		{"ramp", Banner{Arrivals: load.Arrivals{Burstiness: 1, RampStrategy: "linear", RampStartRPS: 1, RampEndRPS: 20}},
			"Traffic ramp-up strategy: linear.\nWill increase RPS from 1 to 20 RPS over the duration of the benchmark.\n" +
				"Burstiness factor: 1.0 (Poisson process)\nMaximum request concurrency: None\n"},
		{"closed loop", Banner{Arrivals: load.Arrivals{Rate: 3}, MaxConcurrency: 4, ClosedLoop: &ClosedLoop{Users: users, Duration: 20 * time.Second}},
			"Closed loop: 16 users, think time 1s-3s, 5 started per second, for 20s (the first 5s left out)\nMaximum request concurrency: 16\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			tt.b.Write(&out)
			if out.String() != tt.want {
				t.Errorf("got\n%s\nwant\n%s", out.String(), tt.want)
			}
		})
	}
}

func TestClosedLoopWords(t *testing.T) {
	tests := []struct {
		c    ClosedLoop
		want string
	}{
		{ClosedLoop{Users: &load.Users{Users: 1}, Prompts: 50}, "1 users, no think time, all started at once, 50 requests"},
		{ClosedLoop{Users: &load.Users{Users: 8, Think: load.Think{Min: 2 * time.Second, Max: 2 * time.Second}, SpawnRate: 0.5}, Duration: time.Minute},
			"8 users, think time 2s, 0.5 started per second, for 1m0s"},
		{ClosedLoop{Users: &load.Users{Users: 4, Warmup: time.Second}, Duration: 10 * time.Second},
			"4 users, no think time, all started at once, for 10s (the first 1s left out)"},
	}
	for _, tt := range tests {
		if got := tt.c.Words(); got != tt.want {
			t.Errorf("Words() = %q, want %q", got, tt.want)
		}
	}
}

// TestClosedLoopObject: the result's llmbench.closed_loop keys, in order.
func TestClosedLoopObject(t *testing.T) {
	c := ClosedLoop{Users: &load.Users{Users: 16, Think: load.Think{Min: time.Second, Max: 3 * time.Second}, SpawnRate: 5, Warmup: 5 * time.Second},
		Duration: 20 * time.Second, Prompts: 100}
	var out bytes.Buffer
	if err := c.Object(321).WriteJSON(&out); err != nil {
		t.Fatal(err)
	}
	want := `{"users": 16, "think_time": "1s-3s", "think_time_min_s": 1.0, "think_time_max_s": 3.0, "spawn_rate": 5.0, ` +
		`"duration_s": 20.0, "warmup_duration_s": 5.0, "dataset_prompts": 100, "num_prompts_note": "num_prompts is the 321 requests sent in the timed run; ` +
		`the users took the dataset's 100 prompts in turn, cycling them"}`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}
