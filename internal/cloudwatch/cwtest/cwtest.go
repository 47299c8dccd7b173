// Package cwtest is a CloudWatch GetMetricData server for tests: it
// speaks the Smithy RPC v2 CBOR protocol the AWS SDK for Go v2 uses for
// CloudWatch, on loopback, checks that requests are SigV4-signed for the
// monitoring service, decodes each request and answers with what the
// test's function returns. It never reaches AWS.
package cwtest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/smithy-go/encoding/cbor"
)

// Query is one MetricDataQuery as the server decoded it.
type Query struct {
	ID, Namespace, Metric, Stat string
	Period                      int64
	Dims                        map[string]string
}

// Request is one GetMetricData request as the server decoded it.
type Request struct {
	Start, End time.Time
	NextToken  string
	Queries    []Query
}

// Result is one MetricDataResult to return.
type Result struct {
	ID     string
	Times  []time.Time
	Values []float64
}

// Answer builds the response to the call-th request (0-based): an HTTP
// status, and for 200 the results and next page token; for other
// statuses errType names the AWS error (e.g. "Throttling").
type Answer func(call int, req Request) (status int, results []Result, next string, errType string)

// Server is a running fake; URL is its base URL (AWS_ENDPOINT_URL_CLOUDWATCH
// or a client's BaseEndpoint).
type Server struct {
	URL    string
	mu     sync.Mutex
	reqs   []Request
	answer Answer
}

// New starts a fake answering with answer; it stops when the test ends.
func New(t testing.TB, answer Answer) *Server {
	s := &Server{answer: answer}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Calls is how many requests were received.
func (s *Server) Calls() int { return len(s.Requests()) }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/service/GraniteServiceVersion20100801/operation/GetMetricData" ||
		r.Header.Get("Smithy-Protocol") != "rpc-v2-cbor" ||
		!strings.Contains(r.Header.Get("Authorization"), "/monitoring/aws4_request") {
		w.WriteHeader(400)
		return
	}
	body, _ := io.ReadAll(r.Body)
	v, err := cbor.Decode(body)
	m, ok := v.(cbor.Map)
	if err != nil || !ok {
		w.WriteHeader(400)
		return
	}
	req := decodeRequest(m)
	s.mu.Lock()
	call := len(s.reqs)
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	status, results, next, errType := s.answer(call, req)
	w.Header().Set("Smithy-Protocol", "rpc-v2-cbor")
	w.Header().Set("Content-Type", "application/cbor")
	if status != 200 {
		w.WriteHeader(status)
		w.Write(cbor.Encode(cbor.Map{
			"__type":  cbor.String("com.amazonaws.cloudwatch#" + errType),
			"message": cbor.String("bad request for test"),
		}))
		return
	}
	w.WriteHeader(200)
	w.Write(encodeResults(results, next))
}

// encodeResults is a GetMetricData response body.
func encodeResults(results []Result, next string) []byte {
	list := cbor.List{}
	for _, r := range results {
		ts, vs := cbor.List{}, cbor.List{}
		for i := range r.Times {
			ts = append(ts, &cbor.Tag{ID: 1, Value: cbor.Float64(float64(r.Times[i].Unix()))})
			vs = append(vs, cbor.Float64(r.Values[i]))
		}
		list = append(list, cbor.Map{
			"Id": cbor.String(r.ID), "Label": cbor.String(r.ID),
			"Timestamps": ts, "Values": vs, "StatusCode": cbor.String("Complete"),
		})
	}
	out := cbor.Map{"MetricDataResults": list, "Messages": cbor.List{}}
	if next != "" {
		out["NextToken"] = cbor.String(next)
	}
	return cbor.Encode(out)
}

func decodeRequest(m cbor.Map) Request {
	var req Request
	if t, err := cbor.AsTime(m["StartTime"]); err == nil {
		req.Start = t.UTC()
	}
	if t, err := cbor.AsTime(m["EndTime"]); err == nil {
		req.End = t.UTC()
	}
	if s, ok := m["NextToken"].(cbor.String); ok {
		req.NextToken = string(s)
	}
	qs, _ := m["MetricDataQueries"].(cbor.List)
	for _, qv := range qs {
		qm, _ := qv.(cbor.Map)
		stat, _ := qm["MetricStat"].(cbor.Map)
		metric, _ := stat["Metric"].(cbor.Map)
		q := Query{ID: str(qm["Id"]), Namespace: str(metric["Namespace"]), Metric: str(metric["MetricName"]),
			Stat: str(stat["Stat"]), Dims: map[string]string{}}
		q.Period, _ = cbor.AsInt64(stat["Period"])
		dl, _ := metric["Dimensions"].(cbor.List)
		for _, dv := range dl {
			d, _ := dv.(cbor.Map)
			q.Dims[str(d["Name"])] = str(d["Value"])
		}
		req.Queries = append(req.Queries, q)
	}
	return req
}

func str(v cbor.Value) string {
	s, _ := v.(cbor.String)
	return string(s)
}

// PerMinute answers every query whose period is 60 s with one datapoint
// per minute from the request's start up to its end (exclusive), valued
// by value(metric, stat, minute) when it returns ok; other queries get
// no datapoints. It models CloudWatch's one-minute metrics, such as the
// endpoint instance utilisation in /aws/sagemaker/Endpoints.
func PerMinute(value func(metric, stat string, minute time.Time) (float64, bool)) Answer {
	return func(_ int, req Request) (int, []Result, string, string) {
		var rs []Result
		for _, q := range req.Queries {
			r := Result{ID: q.ID}
			for m := req.Start; q.Period == 60 && m.Before(req.End); m = m.Add(time.Minute) {
				if v, ok := value(q.Metric, q.Stat, m); ok {
					r.Times = append(r.Times, m)
					r.Values = append(r.Values, v)
				}
			}
			rs = append(rs, r)
		}
		return 200, rs, "", ""
	}
}
