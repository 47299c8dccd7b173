package sim

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
)

// BenchmarkEncodeChunk: building one completions token chunk.
func BenchmarkEncodeChunk(b *testing.B) {
	g := &gen{h: 1, target: 1000}
	r := &Request{Kind: KindCompletion}
	enc := newEncoder(KindCompletion, FormatOpenAI, framingSSE, false, g, 10, "cmpl-x", 1, "llmbench-sim", r)
	var buf []byte
	i := 0
	for b.Loop() {
		buf = enc.tokens(buf[:0], i%999, i%999+1)
		i++
	}
}

// BenchmarkStreamChunks measures how fast one stream can go over real
// loopback TCP: fixed mode with TTFT and ITL zero, so every token is due at
// once and the writer, always behind, sends up to 64 chunks per write; a
// raw client reads and discards. ns/chunk is the encode-and-write cost per
// chunk on that batched path (a paced stream pays one write syscall per
// chunk on top, ~10 µs of kernel time each on the 2-core development VM).
func BenchmarkStreamChunks(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Mode, cfg.TTFT, cfg.ITL = ModeFixed, 0, 0
	run, err := Start(context.Background(), cfg, "")
	if err != nil {
		b.Fatal(err)
	}
	defer run.Stop(context.Background())
	const tokens = 1000
	body := fmt.Sprintf(`{"prompt":"x","max_tokens":%d,"stream":true}`, tokens)
	req := fmt.Sprintf("POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	conn, err := net.Dial("tcp", run.Addr)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	buf := make([]byte, 64<<10)
	b.ResetTimer()
	for b.Loop() {
		if _, err := io.WriteString(conn, req); err != nil {
			b.Fatal(err)
		}
		// Read until the terminating chunk of this response.
		var tail []byte
		for !strings.HasSuffix(string(tail), "0\r\n\r\n") {
			n, err := conn.Read(buf)
			if err != nil {
				b.Fatal(err)
			}
			tail = append(tail, buf[:n]...)
			tail = tail[max(0, len(tail)-8):]
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*tokens), "ns/chunk")
}
