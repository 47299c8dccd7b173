package sagemaker

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/backend/stream"
	"github.com/llmbench/llmbench/internal/record"
)

// endlessParts streams PayloadParts holding chunk, over and over, until
// the client goes away.
func endlessParts(chunk []byte) scenario {
	return func(w http.ResponseWriter, r *http.Request, _ []byte, done <-chan struct{}) {
		fw := startStream(w)
		for r.Context().Err() == nil {
			select {
			case <-done:
				return
			default:
			}
			if fw.part(chunk) != nil {
				return
			}
		}
	}
}

// TestSendEndlessStream: on every payload format, a container that streams
// forever ends as response_too_large once the response holds its cap, with
// the chunk times measured until then kept; nothing stays reserved.
func TestSendEndlessStream(t *testing.T) {
	const limit = 1 << 20
	tests := []struct {
		name   string
		format Format
		chunk  string
		chunks bool
	}{
		{"openai-chat tokens", FormatOpenAIChat, `data: {"choices":[{"index":0,"delta":{"content":"lorem ipsum "}}]}` + "\n\n", true},
		{"tgi tokens", FormatTGI, `data:{"token":{"id":1,"text":"lorem ipsum ","special":false}}` + "\n\n", true},
		{"lmi tokens", FormatLMI, `{"token":{"id":1,"text":"lorem ipsum "}}` + "\n", true},
		{"openai line without end", FormatOpenAIChat, strings.Repeat("x", 16<<10), false},
		{"tgi line without end", FormatTGI, strings.Repeat("x", 16<<10), false},
		{"lmi JSON that never completes", FormatLMI, "[" + strings.Repeat("1,", 8<<10) + "\n", false},
	}
	f := newFakeSM(t, false)
	for _, tt := range tests {
		name := strings.ReplaceAll(tt.name, " ", "-")
		chunk := bytes.Repeat([]byte(tt.chunk), max(1, 8192/len(tt.chunk)))
		if !tt.chunks {
			chunk = []byte(tt.chunk)
		}
		f.on(name, endlessParts(chunk))
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig(f, name, tt.format)
			cfg.MaxResponseBytes = limit
			b, err := New(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			resp := send(t, b, context.Background())
			if resp.ErrClass != record.ErrResponseTooLarge || !errors.Is(resp.Err, stream.ErrResponseTooLarge) {
				t.Fatalf("class %q, err %v; want response_too_large", resp.ErrClass, resp.Err)
			}
			if held := len(resp.Text) + stream.ChunkStampBytes*resp.Chunks.Len(); held > limit {
				t.Errorf("response holds %d bytes, more than the cap %d", held, limit)
			}
			if got := resp.Chunks.Len() > 0; got != tt.chunks {
				t.Errorf("%d chunk times kept", resp.Chunks.Len())
			}
			if b.budget.Used() != 0 {
				t.Errorf("%d bytes of the shared budget still reserved after Send", b.budget.Used())
			}
		})
	}
}
