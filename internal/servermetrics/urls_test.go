package servermetrics

import (
	"slices"
	"strings"
	"testing"
)

func TestResolveURLs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec, base string
		want       []string
		err        string
	}{
		// auto: the base URL's origin, whatever its path.
		{"auto", "http://10.0.0.5:8000/v1", []string{"http://10.0.0.5:8000/metrics"}, ""},
		{"auto", "https://llm.example.com", []string{"https://llm.example.com/metrics"}, ""},
		// One URL per replica, and a DCGM exporter.
		{"http://a:8000/metrics, http://b:8000/metrics,http://a:9400/metrics", "", []string{"http://a:8000/metrics", "http://b:8000/metrics", "http://a:9400/metrics"}, ""},
		{"", "http://x", nil, "empty"},
		// SageMaker or a bad base URL: say so, without the secret.
		{"auto", "sagemaker://user:secret@endpoint", nil, "no http(s) origin"},
		{"ftp://u:secret@h/metrics", "", nil, "not an http(s) URL"},
	}
	for _, tt := range tests {
		t.Run(tt.spec+"|"+tt.base, func(t *testing.T) {
			got, err := ResolveURLs(tt.spec, tt.base)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || strings.Contains(err.Error(), "secret") {
					t.Errorf("err %v, want one with %q and no secret", err, tt.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
