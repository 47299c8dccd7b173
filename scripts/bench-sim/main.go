// Command bench-sim measures how closely the simulator keeps its fixed-mode
// schedule under many concurrent streams: it starts the simulator in-process
// (fixed mode, default TTFT 50 ms, ITL 10 ms), opens N concurrent streaming
// requests over real loopback HTTP with arrivals spread evenly over -ramp,
// reads every byte, and then compares each token chunk's ground-truth write
// start (and end) with the time the engine scheduled it.
//
// Lateness = write start - scheduled time. Reported as p50/p99/max over the
// steady-state window (all N streams open) and over the whole run.
//
//	go run ./scripts/bench-sim -streams 1000 -tokens 300
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/llmbench/llmbench/internal/sim"
)

func main() {
	streams := flag.Int("streams", 1000, "concurrent streams")
	tokens := flag.Int("tokens", 300, "output tokens per stream")
	ttft := flag.Duration("ttft", 50*time.Millisecond, "fixed-mode TTFT")
	itl := flag.Duration("itl", 10*time.Millisecond, "fixed-mode ITL")
	ramp := flag.Duration("ramp", time.Second, "spread stream starts evenly over this long")
	spin := flag.Duration("spin-wait", 0, "engine spin-wait (see sim.Config.SpinWait)")
	pollEvery := flag.Duration("poll", 0, "0: one reading goroutine per stream (like a real client); >0: one goroutine "+
		"drains every socket with non-blocking reads at this interval, so the client costs little CPU and the figure is the server's")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil && pprof.StartCPUProfile(f) == nil {
			defer pprof.StopCPUProfile()
		}
	}
	if err := run(*streams, *tokens, *ttft, *itl, *ramp, *spin, *pollEvery); err != nil {
		fmt.Fprintln(os.Stderr, "bench-sim:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(streams, tokens int, ttft, itl, ramp, spin, pollEvery time.Duration) error {
	cfg := sim.DefaultConfig()
	cfg.Mode = sim.ModeFixed
	cfg.TTFT, cfg.ITL, cfg.SpinWait = ttft, itl, spin
	cfg.KeepTruth = true
	ctx := context.Background()
	srv, err := sim.Start(ctx, cfg, "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer srv.Stop(ctx)

	body := fmt.Sprintf(`{"prompt":"bench","max_tokens":%d,"ignore_eos":true,"stream":true}`, tokens)
	// A raw HTTP/1.1 request on its own TCP connection per stream: the
	// client does as little as possible (read and count bytes) so the
	// figure is about the server.
	rawReq := fmt.Sprintf("POST /v1/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		srv.Addr, len(body), body)
	// Start offsets are random (seeded) over the ramp, so streams' token
	// phases are spread as with Poisson arrivals rather than locked to a
	// grid that would make hundreds of writes fall due at the same instant.
	rng := rand.New(rand.NewPCG(1, 2))
	offsets := make([]time.Duration, streams)
	for i := range offsets {
		offsets[i] = time.Duration(rng.Int64N(int64(ramp) + 1))
	}
	slices.Sort(offsets)
	var wg sync.WaitGroup
	errs := make(chan error, streams)
	start := time.Now()
	// Bound the whole run: ramp + generation + generous slack.
	deadline := ramp + ttft + time.Duration(tokens)*itl + 30*time.Second
	rctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	var cpu0 = cpuTime()
	var d net.Dialer
	var toPoller chan *polled
	if pollEvery > 0 {
		toPoller = make(chan *polled, streams)
		go poller(pollEvery, toPoller, &wg, errs)
	}
	for i := range streams {
		time.Sleep(time.Until(start.Add(offsets[i])))
		wg.Add(1)
		go func() {
			conn, err := d.DialContext(rctx, "tcp", srv.Addr)
			if err != nil {
				errs <- err
				wg.Done()
				return
			}
			context.AfterFunc(rctx, func() { conn.Close() })
			if _, err := io.WriteString(conn, rawReq); err != nil {
				errs <- err
				conn.Close()
				wg.Done()
				return
			}
			if toPoller != nil {
				raw, err := conn.(*net.TCPConn).SyscallConn()
				if err != nil {
					errs <- err
					conn.Close()
					wg.Done()
					return
				}
				toPoller <- &polled{conn: conn, raw: raw}
				return
			}
			defer wg.Done()
			defer conn.Close()
			buf := make([]byte, 4096)
			var n int
			var tail []byte
			for {
				k, err := conn.Read(buf)
				n += k
				if k > 0 {
					tail = append(tail, buf[:k]...)
					tail = tail[max(0, len(tail)-16):]
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					errs <- fmt.Errorf("read: %v (%d bytes)", err, n)
					return
				}
			}
			if !strings.Contains(string(tail), "0\r\n\r\n") {
				errs <- fmt.Errorf("stream ended without the final chunk (%d bytes)", n)
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	cpu := cpuTime() - cpu0
	close(errs)
	nerr := 0
	for err := range errs {
		if nerr < 3 {
			fmt.Fprintln(os.Stderr, "stream error:", err)
		}
		nerr++
	}

	truth := srv.Server.Truth()
	// Steady state: from the last arrival + TTFT to the first stream end.
	var lastArrival, firstEnd time.Time
	for _, t := range truth {
		if t.Arrival.After(lastArrival) {
			lastArrival = t.Arrival
		}
		if firstEnd.IsZero() || t.End.Before(firstEnd) {
			firstEnd = t.End
		}
	}
	steadyFrom := lastArrival.Add(ttft)
	var all, steady, endLate []time.Duration
	for _, t := range truth {
		for _, c := range t.Chunks {
			if c.Kind != sim.ChunkToken {
				continue
			}
			late := c.WriteStart.Sub(c.Due)
			all = append(all, late)
			endLate = append(endLate, c.WriteEnd.Sub(c.Due))
			if c.Due.After(steadyFrom) && c.Due.Before(firstEnd) {
				steady = append(steady, late)
			}
		}
	}
	client := "one goroutine per stream"
	if pollEvery > 0 {
		client = fmt.Sprintf("one goroutine polling all sockets every %v", pollEvery)
	}
	fmt.Printf("bench-sim: %d streams x %d tokens, fixed ttft=%v itl=%v, ramp %v, GOMAXPROCS=%d, spin-wait=%v, client: %s\n",
		streams, tokens, ttft, itl, ramp, runtime.GOMAXPROCS(0), spin, client)
	fmt.Printf("  requests finished: %d, stream errors: %d, wall %.2fs, process CPU %.2fs (%.0f%% of one core)\n",
		len(truth), nerr, wall.Seconds(), cpu.Seconds(), 100*cpu.Seconds()/wall.Seconds())
	fmt.Printf("  token chunks: %d (%.0f/s)\n", len(all), float64(len(all))/wall.Seconds())
	report("steady state (all streams open), write start - schedule", steady)
	report("whole run, write start - schedule", all)
	report("whole run, write end - schedule", endLate)
	within := 0
	for _, d := range steady {
		if d <= time.Millisecond {
			within++
		}
	}
	if len(steady) > 0 {
		fmt.Printf("  steady state: %.2f%% of chunks written within 1 ms of schedule\n", 100*float64(within)/float64(len(steady)))
	}
	return nil
}

func report(name string, d []time.Duration) {
	if len(d) == 0 {
		fmt.Printf("  %s: no samples\n", name)
		return
	}
	slices.Sort(d)
	q := func(p float64) time.Duration { return d[min(len(d)-1, int(p*float64(len(d))))] }
	fmt.Printf("  %s (n=%d): p50 %v  p90 %v  p99 %v  p99.9 %v  max %v\n", name, len(d),
		q(0.5).Round(time.Microsecond), q(0.9).Round(time.Microsecond), q(0.99).Round(time.Microsecond),
		q(0.999).Round(time.Microsecond), d[len(d)-1].Round(time.Microsecond))
}

// polled is a stream the poller drains.
type polled struct {
	conn net.Conn
	raw  syscall.RawConn
	n    int
	tail []byte
}

// poller drains every socket with one non-blocking read each per tick, so
// reading 1,000 streams costs ~1,000 syscalls per tick instead of two per
// chunk. The kernel's socket buffers hold what arrives in between; the
// server's write times (the ground truth measured here) do not depend on
// when the client reads.
func poller(every time.Duration, in <-chan *polled, wg *sync.WaitGroup, errs chan<- error) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	buf := make([]byte, 256<<10)
	var active []*polled
	for {
		select {
		case p := <-in:
			active = append(active, p)
			continue
		case <-tick.C:
		}
		keep := active[:0]
		for _, p := range active {
			var k int
			var rerr error
			_ = p.raw.Read(func(fd uintptr) bool {
				k, rerr = syscall.Read(int(fd), buf)
				return true // never wait: this is a poll
			})
			if k > 0 {
				p.n += k
				p.tail = append(p.tail, buf[:k]...)
				p.tail = p.tail[max(0, len(p.tail)-16):]
			}
			switch {
			case k > 0 || rerr == syscall.EAGAIN:
				keep = append(keep, p)
			case rerr != nil:
				errs <- fmt.Errorf("read: %v (%d bytes)", rerr, p.n)
				p.conn.Close()
				wg.Done()
			default: // EOF
				if !strings.Contains(string(p.tail), "0\r\n\r\n") {
					errs <- fmt.Errorf("stream ended without the final chunk (%d bytes)", p.n)
				}
				p.conn.Close()
				wg.Done()
			}
		}
		active = keep
	}
}
