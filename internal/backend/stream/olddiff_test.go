package stream

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/llmbench/llmbench/internal/backend"
)

func tokOutcome(r *backend.Response) string {
	s := fmt.Sprintf("%q %v %q %q", r.Text, r.Chunks.Times(), r.FinishReason, r.ErrClass)
	if r.PromptTokens != nil {
		s += fmt.Sprint(" p", *r.PromptTokens)
	}
	if r.CompletionTokens != nil {
		s += fmt.Sprint(" c", *r.CompletionTokens)
	}
	if r.Err != nil {
		s += " err " + r.Err.Error()
	}
	return s
}

func splitBy(payload, sizes []byte, fn func([]byte, time.Time) error) time.Time {
	now := time.Unix(0, 0)
	i := 0
	for len(payload) > 0 {
		n := len(payload)
		if len(sizes) > 0 {
			n = min(int(sizes[i%len(sizes)]), len(payload))
			i++
		}
		now = now.Add(time.Millisecond)
		if fn(payload[:n], now) != nil {
			return time.Time{}
		}
		payload = payload[n:]
		if i > 1<<12 {
			break
		}
	}
	return now
}

func FuzzOldTokens(f *testing.F) {
	for _, s := range []string{
		"data:{\"token\":{\"id\":1,\"text\":\"a\"}}\n\ndata:{\"generated_text\":\"a\",\"details\":{\"finish_reason\":\"stop\"}}\n\n",
		"{\"token\":\n{\"id\":[1]}}\n  data:\n{\"generated_text\":\"\",\"details\":null}\n",
		": ping\n\n  event: x\nid: 1\nevent\ndata: [DONE]\n\n{\"error\":\"x\",\"error_type\":\"y\"}\n",
		"{\"token\":\n: x\n\ndata: \"a\"}\n",
	} {
		f.Add([]byte(s), []byte{3})
		f.Add([]byte(s), []byte{1, 0, 5})
	}
	f.Fuzz(func(t *testing.T, payload, sizes []byte) {
		var r1, r2 backend.Response
		old := oldNewTokenDecoder(&r1)
		old.lines.Meter = &old.meter
		nw := New(FormatTGI, &r2, Options{}).(*tokenDecoder)
		if end := splitBy(payload, sizes, old.feed); !end.IsZero() {
			old.finish(end)
		}
		if end := splitBy(payload, sizes, nw.Feed); !end.IsZero() {
			nw.Finish(end)
		}
		// The old code lived in package sagemaker under another name.
		a := strings.ReplaceAll(tokOutcome(&r1), "stream.oldTokenLine", "sagemaker.tokenLine")
		if b := tokOutcome(&r2); a != b {
			t.Fatalf("old %s\nnew %s", a, b)
		}
	})
}

type evRec struct {
	Kind    Kind
	Time    time.Time
	Msg     *refMessage
	Err     string
	FlushEr string
}

func parseEvents(payload, sizes []byte, framing Framing, old bool) []evRec {
	var evs []evRec
	h := HandlerFunc(func(e *Event) error {
		r := evRec{Kind: e.Kind, Time: e.Time}
		if e.Msg != nil {
			m := toRef(e.Msg)
			r.Msg = &m
		}
		evs = append(evs, r)
		return nil
	})
	var op oldParser
	var np Parser
	op.Framing, np.Framing = framing, framing
	op.Decoder.Mode, np.Decoder.Mode = ModeAuto, ModeAuto
	end := splitBy(payload, sizes, func(b []byte, now time.Time) error {
		var err error
		if old {
			err = op.oldFeed(b, now, h)
		} else {
			err = np.Feed(b, now, h)
		}
		if err != nil {
			evs = append(evs, evRec{Err: err.Error()})
		}
		return err
	})
	if !end.IsZero() {
		var err error
		if old {
			err = op.oldFlush(end, h)
		} else {
			err = np.Flush(end, h)
		}
		if err != nil {
			evs = append(evs, evRec{FlushEr: err.Error()})
		}
	}
	return evs
}

func FuzzOldParser(f *testing.F) {
	for _, s := range []string{
		"data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: [DONE]\n\n",
		": ping\n\nevent: x\nid: 1\nevent\n  \n {\"choices\":[]}\nhello\n",
		"data:{\"usage\":{\"prompt_tokens\":1}}\r\n\r\n{\"error\":{\"message\":\"m\"}}",
		"data: {\"choices\": [}\n\n",
	} {
		for fr := range byte(3) {
			f.Add(fr, []byte(s), []byte{3})
			f.Add(fr, []byte(s), []byte{100})
		}
	}
	f.Fuzz(func(t *testing.T, fr byte, payload, sizes []byte) {
		framing := Framing(fr % 2)
		a := parseEvents(payload, sizes, framing, true)
		b := parseEvents(payload, sizes, framing, false)
		if d := cmp.Diff(a, b); d != "" {
			t.Fatal(d)
		}
	})
}
