// Command bench-vs-floor measures llmbench run beside the socket floor
// client and, when given, vLLM's own client and a "before" build of
// llmbench, one right after the other against the same simulator
// (llmbench sim --mode fixed, TTFT 50 ms, ITL 10 ms, a fresh process per
// run with its truth log), interleaved and repeated, and prints medians:
// TTFT error (client mean TTFT − the server's mean arrival → first token
// write), p99 ITL error, CPU seconds and peak RSS of each client process,
// and llmbench's ratios to the floor.
//
// The floor client and vLLM's client runner live beside this repository,
// in ../shared/tools (floorclient, vllm-client); every path is a flag.
// From the repository's root:
//
//	go build -o /tmp/llmbench ./cmd/llmbench
//	(cd ../shared/tools/floorclient && go build -o /tmp/floor .)
//	go run ./scripts/bench-vs-floor -bin /tmp/llmbench -floor /tmp/floor -streams 100,1000 -reps 3 [-preconnect] \
//	    [-before /tmp/llmbench-before] \
//	    [-vllm 'python3 ../shared/tools/vllm-client/run_vllm_bench.py --vllm-src /tmp/vllm-src']
//
// p99 ITL error: for llmbench, each record is matched to the server's
// record of the same request (by x-request-id) and each gap compared; for
// vLLM's client (no request ids kept), its pooled p99 ITL minus the
// server's pooled p99 gap. The floor client stamps no ITL.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/llmbench/llmbench/internal/calibrate"
	"github.com/llmbench/llmbench/internal/record"
)

// sample is one client run's figures.
type sample struct {
	ttftErr, itlErr, cpu, rssMB float64
	// user is the user-space part of cpu: the client's own work, which
	// varies less from run to run than the kernel's.
	user float64
	// runCPU is llmbench's CPU over the timed run only (its self-check),
	// without start-up, prompt generation and reporting; NaN for others.
	runCPU float64
}

func main() {
	bin := flag.String("bin", "/tmp/llmbench", "llmbench binary (runs the simulator and the client)")
	floor := flag.String("floor", "/tmp/floor", "floor client binary")
	vllm := flag.String("vllm", "", "command that runs vLLM's client (run_vllm_bench.py ...); empty = skip")
	streams := flag.String("streams", "100,1000", "comma list of stream counts")
	reps := flag.Int("reps", 3, "interleaved repetitions")
	tokens := flag.Int("tokens", 100, "output tokens")
	pre := flag.Bool("preconnect", false, "llmbench --preconnect and floor -preconnect")
	extra := flag.String("llmbench-args", "", "extra llmbench run arguments")
	before := flag.String("before", "", "another llmbench binary to run as client \"before\" (e.g. the previous commit's)")
	flag.Parse()
	clients := []string{"floor", "llmbench"}
	if *before != "" {
		clients = append(clients, "before")
	}
	if *vllm != "" {
		clients = append(clients, "vllm")
	}
	for _, f := range strings.Split(*streams, ",") {
		n, _ := strconv.Atoi(f)
		res := map[string][]sample{}
		for rep := 0; rep < *reps; rep++ {
			for _, c := range clients {
				s, err := runOnce(c, n, *tokens, *pre, *bin, *floor, *vllm, *extra, *before)
				if err != nil {
					fmt.Fprintf(os.Stderr, "%s at %d streams: %v\n", c, n, err)
					os.Exit(1)
				}
				fmt.Fprintf(os.Stderr, "  rep %d %-8s n=%d ttft-err %.1f ms itl-err-p99 %.2f ms cpu %.3f s (user %.3f) rss %.0f MB\n", rep+1, c, n, s.ttftErr, s.itlErr, s.cpu, s.user, s.rssMB)
				res[c] = append(res[c], s)
			}
		}
		fmt.Printf("\n%d streams (medians of %d interleaved runs, preconnect=%v)\n", n, *reps, *pre)
		fmt.Println("| client | TTFT error ms | p99 ITL error ms | CPU s (process) | of it user | CPU s (timed run) | RSS MB |")
		fmt.Println("|---|---|---|---|---|---|---|")
		for _, c := range clients {
			m := med(res[c])
			run := "–"
			if !math.IsNaN(m.runCPU) {
				run = fmt.Sprintf("%.2f", m.runCPU)
			}
			fmt.Printf("| %s | %+.1f | %s | %.3f | %.3f | %s | %.0f |\n", c, m.ttftErr, itlCell(c, m.itlErr), m.cpu, m.user, run, m.rssMB)
		}
		f, l := med(res["floor"]), med(res["llmbench"])
		fmt.Printf("llmbench/floor: TTFT error %.2f× (bound 1.1× + 2 ms = %.1f ms: %s), CPU %.2f× process, %.2f× timed run (bound 1.2×)\n",
			l.ttftErr/f.ttftErr, 1.1*f.ttftErr+2, map[bool]string{true: "met", false: "NOT met"}[l.ttftErr <= 1.1*f.ttftErr+2], l.cpu/f.cpu, l.runCPU/f.cpu)
	}
}

func itlCell(c string, v float64) string {
	if c == "floor" || math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%+.2f", v)
}

func med(ss []sample) sample {
	get := func(f func(s sample) float64) float64 {
		v := make([]float64, len(ss))
		for i, s := range ss {
			v[i] = f(s)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return sample{ttftErr: get(func(s sample) float64 { return s.ttftErr }), itlErr: get(func(s sample) float64 { return s.itlErr }),
		cpu: get(func(s sample) float64 { return s.cpu }), user: get(func(s sample) float64 { return s.user }),
		rssMB: get(func(s sample) float64 { return s.rssMB }), runCPU: get(func(s sample) float64 { return s.runCPU })}
}

// runOnce starts a simulator, runs one client against it, stops the
// simulator and compares.
func runOnce(client string, n, tokens int, pre bool, bin, floor, vllm, extra, before string) (sample, error) {
	dir, err := os.MkdirTemp("", "bench-vs-floor")
	if err != nil {
		return sample{}, err
	}
	defer os.RemoveAll(dir)
	truthPath := filepath.Join(dir, "truth.jsonl")
	sim := exec.Command(bin, "sim", "--mode", "fixed", "--ttft", "50ms", "--itl", "10ms", "--listen", "127.0.0.1:0", "--truth-log", truthPath)
	out, _ := sim.StdoutPipe()
	if err := sim.Start(); err != nil {
		return sample{}, err
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	_, url, _ := strings.Cut(strings.TrimSpace(line), " on ")
	addr := strings.TrimPrefix(url, "http://")
	var cmd *exec.Cmd
	recPath, resPath := filepath.Join(dir, "rec.jsonl"), filepath.Join(dir, "res.json")
	switch client {
	case "floor":
		args := []string{"-addr", addr, "-n", strconv.Itoa(n), "-tokens", strconv.Itoa(tokens)}
		if pre {
			args = append(args, "-preconnect")
		}
		cmd = exec.Command(floor, args...)
	case "llmbench", "before":
		// --no-config: a config.yaml in the working directory (this
		// repository has one) would add its warm-ups and a detailed
		// result, work the floor client does not do.
		args := []string{"run", "--no-config", "--base-url", url, "--model", "llmbench-sim", "--tokenizer", "builtin:gpt2", "--num-prompts", strconv.Itoa(n),
			"--max-concurrency", strconv.Itoa(n), "--random-input-len", "32", "--random-output-len", strconv.Itoa(tokens),
			"--request-id-prefix", "cmp-", "--save-records", recPath, "--save-result", "--result-dir", dir, "--result-filename", "res.json", "--disable-tqdm"}
		if pre {
			args = append(args, "--preconnect")
		}
		args = append(args, strings.Fields(extra)...)
		cmd = exec.Command(bin, args...)
		if client == "before" {
			cmd = exec.Command(before, args...)
		}
	case "vllm":
		f := strings.Fields(vllm)
		args := append(f[1:], "--", "--backend", "openai", "--base-url", url, "--model", "llmbench-sim", "--dataset-name", "random",
			"--random-input-len", "32", "--random-output-len", strconv.Itoa(tokens), "--ignore-eos", "--num-prompts", strconv.Itoa(n),
			"--max-concurrency", strconv.Itoa(n), "--save-result", "--save-detailed", "--result-dir", dir, "--result-filename", "res.json")
		cmd = exec.Command(f[0], args...)
	}
	stdout, err := cmd.Output()
	_ = sim.Process.Signal(syscall.SIGINT)
	_ = sim.Wait()
	if err != nil {
		return sample{}, fmt.Errorf("%v: %s", err, stdout)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	s := sample{cpu: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds(), user: time.Duration(ru.Utime.Nano()).Seconds(), rssMB: float64(ru.Maxrss) / 1024, itlErr: math.NaN(), runCPU: math.NaN()}
	srvTTFT, srvGapP99, truth, err := serverTruth(truthPath)
	if err != nil {
		return s, err
	}
	switch client {
	case "floor":
		m := regexp.MustCompile(`mean TTFT ([0-9.]+) ms`).FindSubmatch(stdout)
		if m == nil {
			return s, fmt.Errorf("floor printed %q", stdout)
		}
		v, _ := strconv.ParseFloat(string(m[1]), 64)
		s.ttftErr = v - srvTTFT
	case "llmbench", "before":
		_, recs, _, err := record.ReadFile(recPath)
		if err != nil {
			return s, err
		}
		e, err := calibrate.Compare(recs, func(i int) string { return "cmp-" + strconv.Itoa(i) }, truth)
		if err != nil {
			return s, err
		}
		s.ttftErr, s.itlErr = e.TTFTMeanMs, e.ITLP99Ms
		var r struct {
			X struct {
				SC struct {
					CPU *float64 `json:"cpu_seconds"`
				} `json:"self_check"`
			} `json:"llmbench"`
		}
		if b, err := os.ReadFile(resPath); err == nil && json.Unmarshal(b, &r) == nil && r.X.SC.CPU != nil {
			s.runCPU = *r.X.SC.CPU
		}
	case "vllm":
		var r struct {
			MeanTTFT float64 `json:"mean_ttft_ms"`
			P99ITL   float64 `json:"p99_itl_ms"`
		}
		b, err := os.ReadFile(resPath)
		if err != nil {
			return s, err
		}
		if err := json.Unmarshal(b, &r); err != nil {
			return s, err
		}
		s.ttftErr, s.itlErr = r.MeanTTFT-srvTTFT, r.P99ITL-srvGapP99
	}
	return s, nil
}

// serverTruth is the server's mean TTFT and pooled p99 gap (ms) over its
// streamed completions, and its truth by request id.
func serverTruth(path string) (meanTTFT, gapP99 float64, byID map[string]calibrate.Truth, err error) {
	fh, err := os.Open(path)
	if err != nil {
		return 0, 0, nil, err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var sum float64
	var k int
	var gaps []float64
	byID = map[string]calibrate.Truth{}
	for sc.Scan() {
		var l struct {
			ID       string `json:"request_id"`
			Endpoint string `json:"endpoint"`
			Stream   bool   `json:"stream"`
			Arrival  int64  `json:"arrival_unix_ns"`
			Chunks   []struct {
				Kind  string `json:"kind"`
				Write int64  `json:"write_start_unix_ns"`
			} `json:"chunks"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return 0, 0, nil, err
		}
		if l.Endpoint != "completions" || !l.Stream {
			continue
		}
		t := calibrate.Truth{Arrival: l.Arrival}
		for _, c := range l.Chunks {
			if c.Kind == "token" {
				t.Writes = append(t.Writes, c.Write)
			}
		}
		if len(t.Writes) == 0 {
			continue
		}
		sum += float64(t.Writes[0]-t.Arrival) / 1e6
		k++
		for i := 1; i < len(t.Writes); i++ {
			gaps = append(gaps, float64(t.Writes[i]-t.Writes[i-1])/1e6)
		}
		if l.ID != "" {
			byID[l.ID] = t
		}
	}
	if k == 0 {
		return 0, 0, nil, fmt.Errorf("no streamed completions in the truth log")
	}
	slices.Sort(gaps)
	return sum / float64(k), gaps[int(0.99*float64(len(gaps)-1))], byID, sc.Err()
}
