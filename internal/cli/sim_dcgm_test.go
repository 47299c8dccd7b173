package cli

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestSimDCGMAddr: --dcgm-addr serves DCGM-named GPU metrics on its own
// listener, and --no-enable-prefix-caching is accepted; a non-loopback
// --dcgm-addr is a usage error.
func TestSimDCGMAddr(t *testing.T) {
	t.Parallel()
	var stdout, stderr strings.Builder
	if code := Main(t.Context(), "test", []string{"sim", "--dcgm-addr", "0.0.0.0:9400"}, strings.NewReader(""), &stdout, &stderr); code != 2 ||
		!strings.Contains(stderr.String(), "--dcgm-addr: listen address") {
		t.Errorf("exit %d, stderr %q; want 2 and a --dcgm-addr usage error", code, stderr.String())
	}
	line, code := runServingLine(t, "sim", "--listen", "127.0.0.1:0", "--dcgm-addr", "127.0.0.1:0",
		"--preset", "fast", "--no-enable-prefix-caching", "--exit-after", "5s")
	urls := urlRE.FindAllString(line, -1)
	if len(urls) != 2 || !strings.Contains(line, "DCGM metrics on "+urls[1]+"/metrics") {
		t.Fatalf("startup line %q: want the API URL and the DCGM URL", line)
	}
	resp, err := http.Get(urls[1] + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"DCGM_FI_DEV_GPU_UTIL{", "DCGM_FI_DEV_FB_USED{", "DCGM_FI_DEV_POWER_USAGE{", "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("DCGM metrics lack %s:\n%s", want, b)
		}
	}
	if c := <-code; c != 0 {
		t.Errorf("exit %d", c)
	}
}
