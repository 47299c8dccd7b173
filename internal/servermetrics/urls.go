package servermetrics

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// ResolveURLs turns a --server-metrics value into the URLs to scrape:
// "auto" is baseURL's origin (scheme and host, any path dropped) plus
// /metrics, which is where vLLM, SGLang and TGI serve it; otherwise a
// comma-separated list of http(s) URLs, one per replica (and the DCGM
// exporter's). Errors are one line and never repeat userinfo.
func ResolveURLs(spec, baseURL string) ([]string, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, errors.New("--server-metrics: empty; want auto or URL[,URL...]")
	}
	if spec == "auto" {
		u, err := url.Parse(baseURL)
		if err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
			return nil, fmt.Errorf("--server-metrics auto: the base URL %q has no http(s) origin; give the metrics URL", redact(baseURL))
		}
		return []string{u.Scheme + "://" + u.Host + "/metrics"}, nil
	}
	var out []string
	for _, raw := range strings.Split(spec, ",") {
		raw = strings.TrimSpace(raw)
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
			return nil, fmt.Errorf("--server-metrics: %q is not an http(s) URL", redact(raw))
		}
		out = append(out, raw)
	}
	return out, nil
}
