package bench

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/record"
)

func TestToRecord(t *testing.T) {
	t.Parallel()
	origin := time.Now()
	at := func(ms int) time.Time { return origin.Add(time.Duration(ms) * time.Millisecond) }
	fp := func(v float64) *float64 { return &v }
	ip := func(v int) *int { return &v }
	// Intended at 100 ms, dispatched at 101 ms, slot at 150 ms.
	item := load.Item{Index: 3, Intended: at(100), Arrived: at(101), Acquired: at(150)}
	req := &backend.Request{Index: 3, PromptLen: 10, MaxTokens: 4}
	tests := []struct {
		why  string
		resp backend.Response
		want record.Record
	}{
		{"success: ttft to the first chunk, ITL between chunks, latency to the last chunk, server prompt count wins",
			backend.Response{Start: at(152), Chunks: backend.StampsOf(at(172), at(182), at(202)), Text: "abc",
				PromptTokens: ip(12), CompletionTokens: ip(3), FinishReason: "length", HTTPStatus: 200},
			record.Record{Index: 3, Success: true, PromptLen: 12, OutputTokens: ip(3), ExpectedOutputLen: 4,
				TTFT: 0.020, ITL: []float64{0.010, 0.020}, Latency: 0.050, StartTime: 0.152, GeneratedText: "abc",
				IntendedTime: fp(0.100), QueueTime: 0.051, FinishReason: "length", UsageSeen: true, HTTPStatus: 200}},
		{"failure mid-stream keeps ttft and ITL, latency 0",
			backend.Response{Start: at(152), Chunks: backend.StampsOf(at(172), at(182)), Text: "ab", HTTPStatus: 200,
				Err: errors.New("cut"), ErrClass: record.ErrStreamTruncated},
			record.Record{Index: 3, PromptLen: 10, ExpectedOutputLen: 4, TTFT: 0.020, ITL: []float64{0.010},
				StartTime: 0.152, GeneratedText: "ab", Error: "cut", IntendedTime: fp(0.100), QueueTime: 0.051,
				ErrorClass: record.ErrStreamTruncated, HTTPStatus: 200}},
		{"failed before sending: starts when it got its slot, unclassified error filed as other",
			backend.Response{Err: errors.New("bad body")},
			record.Record{Index: 3, PromptLen: 10, ExpectedOutputLen: 4, ITL: []float64{}, StartTime: 0.150,
				Error: "bad body", IntendedTime: fp(0.100), QueueTime: 0.049, ErrorClass: record.ErrOther}},
	}
	approx := cmp.Comparer(func(a, b float64) bool { d := a - b; return d < 1e-9 && d > -1e-9 })
	for _, tt := range tests {
		t.Run(tt.why, func(t *testing.T) {
			got := toRecord(req, &tt.resp, origin, item)
			// The wall-clock stamp is the origin's plus the start offset.
			if want := origin.UnixNano() + int64(got.StartTime*1e9); max(got.StartUnixNano-want, want-got.StartUnixNano) > 1000 {
				t.Errorf("start_unix_ns %d, want %d", got.StartUnixNano, want)
			}
			got.StartUnixNano = 0
			if diff := cmp.Diff(tt.want, got, approx); diff != "" {
				t.Errorf("record (-want +got):\n%s", diff)
			}
		})
	}
}
