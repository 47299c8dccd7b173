package bench

import (
	"testing"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/load"
)

func TestStepCyclesRequests(t *testing.T) {
	p := &Plan{IDPrefix: "x-", Requests: []backend.Request{{Prompt: "a"}, {Prompt: "b"}}}
	q := p.Step(Load{Arrivals: load.Arrivals{Rate: 4, Burstiness: 1}, MaxConcurrency: 3}, 5)
	wantPrompts := []string{"a", "b", "a", "b", "a"}
	for i, r := range q.Requests {
		if r.Index != i || r.ID != "x-"+string(rune('0'+i)) || r.Prompt != wantPrompts[i] {
			t.Errorf("request %d: index %d id %q prompt %q", i, r.Index, r.ID, r.Prompt)
		}
	}
	if *q.Params.NumPrompts != 5 || *q.Params.MaxConcurrency != 3 || float64(q.Params.RequestRate) != 4 {
		t.Errorf("params %+v", q.Params)
	}
	if len(p.Requests) != 2 || p.Params.NumPrompts != nil {
		t.Error("Step changed the plan it was called on")
	}
}

func TestParseKind(t *testing.T) {
	for name, want := range map[string]Kind{"openai": OpenAICompletions, "vllm": OpenAICompletions, "openai-chat": OpenAIChat, "sagemaker": SageMaker} {
		if k, err := ParseKind(name); err != nil || k != want {
			t.Errorf("%s: %v %v", name, k, err)
		}
	}
	if _, err := ParseKind("tgi"); err == nil {
		t.Error("tgi accepted")
	}
}
