package sim

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestDaemon: the API and both metrics listeners serve until Stop, which
// closes all three; a metrics address that cannot be bound names its
// flag and leaves nothing listening.
func TestDaemon(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.Mode = ModeFixed
	cfg.TTFT, cfg.ITL = time.Millisecond, time.Millisecond
	d, err := StartDaemon(t.Context(), cfg, Addrs{Listen: "127.0.0.1:0", Metrics: "127.0.0.1:0", DCGM: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	get := func(url string) (string, error) {
		resp, err := http.Get(url)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	for url, want := range map[string]string{
		d.URL + "/health":                      "",
		"http://" + d.MetricsAddr + "/metrics": "vllm:num_requests_running",
		"http://" + d.DCGMAddr + "/metrics":    "DCGM_FI_DEV_GPU_UTIL",
	} {
		if body, err := get(url); err != nil || !strings.Contains(body, want) {
			t.Errorf("GET %s: %v, body lacks %q", url, err, want)
		}
	}
	if err := d.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{d.Addr, d.MetricsAddr, d.DCGMAddr} {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			t.Errorf("%s still accepts after Stop", addr)
		}
	}

	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	_, err = StartDaemon(t.Context(), cfg, Addrs{Listen: "127.0.0.1:0", DCGM: busy.Addr().String()})
	if err == nil || !strings.HasPrefix(err.Error(), "--dcgm-addr: ") {
		t.Errorf("busy DCGM address: %v, want an error naming --dcgm-addr", err)
	}
}

// TestDescribe names the model as the banner shows it.
func TestDescribe(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.Mode = ModeBatching
	if got := Describe(&cfg, "fast"); got != "batching, preset fast" {
		t.Errorf("batching: %q", got)
	}
	cfg.Mode, cfg.TTFT, cfg.ITL = ModeFixed, 50*time.Millisecond, 10*time.Millisecond
	if got := Describe(&cfg, "fast"); got != "fixed, ttft 50ms, itl 10ms" {
		t.Errorf("fixed: %q", got)
	}
}
