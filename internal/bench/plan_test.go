package bench

import (
	"slices"
	"testing"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/load"
)

func TestStepCyclesRequests(t *testing.T) {
	p := &Plan{IDPrefix: "x-", Requests: []backend.Request{{Prompt: "a"}, {Prompt: "b"}}}
	q := p.Step(Load{Arrivals: load.Arrivals{Rate: 4, Burstiness: 1}, MaxConcurrency: 3}, 5, "concurrency-3-")
	wantPrompts := []string{"a", "b", "a", "b", "a"}
	for i, r := range q.Requests {
		if r.Index != i || r.ID != "x-concurrency-3-"+string(rune('0'+i)) || r.Prompt != wantPrompts[i] {
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

// TestTagIDs: TagIDs puts the tag after the prefix of every request and
// turn, replacing the one before, and leaves the requests it copied
// alone.
func TestTagIDs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, tag string
		ids       []string // the requests', then the first conversation's turns
		want      []string
	}{
		{"a first tag", "run1-", []string{"b-0", "b-1"}, []string{"b-run1-0", "b-run1-1"}},
		{"no tag: the ids as they were", "", []string{"b-0", "b-1"}, []string{"b-0", "b-1"}},
		{"conversation turns keep their names", "run2-", []string{"b-c0-t0", "b-c0-t0", "b-c0-t1"},
			[]string{"b-run2-c0-t0", "b-run2-c0-t0", "b-run2-c0-t1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			reqs := make([]backend.Request, 2)
			for i := range reqs {
				reqs[i].ID = c.ids[i]
			}
			p := &Plan{IDPrefix: "b-", Requests: reqs}
			if len(c.ids) > 2 {
				p.Requests = reqs[:1]
				p.Conversations = []Conversation{{Turns: []backend.Request{{ID: c.ids[1]}, {ID: c.ids[2]}}}}
			}
			turns := p.Conversations
			// Twice: the second tag replaces the first.
			p.TagIDs("other-")
			p.TagIDs(c.tag)
			var got []string
			for _, r := range p.Requests {
				got = append(got, r.ID)
			}
			for _, cv := range p.Conversations {
				for _, r := range cv.Turns {
					got = append(got, r.ID)
				}
			}
			if !slices.Equal(got, c.want) || p.IDTag != c.tag {
				t.Errorf("ids %v, tag %q; want %v, %q", got, p.IDTag, c.want, c.tag)
			}
			if reqs[0].ID != c.ids[0] || (turns != nil && turns[0].Turns[1].ID != c.ids[2]) {
				t.Error("TagIDs changed the requests it was given")
			}
		})
	}
}
