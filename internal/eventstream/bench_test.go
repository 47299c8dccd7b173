package eventstream

import (
	"io"
	"strconv"
	"testing"
)

// BenchmarkWrite frames one 200-byte SSE event at several part sizes.
func BenchmarkWrite(b *testing.B) {
	event := []byte(`data: {"id":"cmpl-0123456789abcdef","object":"text_completion","created":1795939825,"model":"llmbench-sim","choices":[{"index":0,"text":" 東京","logprobs":null,"finish_reason":null}]}` + "\n\n")
	for _, n := range []int{1, 7, 4096} {
		b.Run("part-size-"+strconv.Itoa(n), func(b *testing.B) {
			w := NewWriter(io.Discard, PartSize{N: n}, 0)
			b.SetBytes(int64(len(event)))
			for b.Loop() {
				if _, err := w.Write(event); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
