package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRunMaxResponseMiB: --max-response-mib reaches the backend: an
// endless stream fails as response_too_large, not at the request timeout.
func TestRunMaxResponseMiB(t *testing.T) {
	t.Parallel()
	chunk := fmt.Sprintf("data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"text\":\"%s\",\"finish_reason\":null}]}\n\n", strings.Repeat("w", 8000))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for r.Context().Err() == nil {
			if _, err := fmt.Fprint(w, chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}))
	defer srv.Close()
	code, out, errs := runCLI(t, "run", "--base-url", srv.URL, "--model", "m", "--num-prompts", "1",
		"--skip-tokenizer-init", "--max-response-mib", "1", "--request-timeout", "60s", "--disable-tqdm")
	if code != 1 || !strings.Contains(out, "response_too_large") {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
}
