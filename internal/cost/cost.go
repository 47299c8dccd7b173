// Package cost turns a run's duration, request count and output tokens
// into money: cost of the run, per request and per million output tokens,
// from an instance's hourly price. A small built-in table holds on-demand
// prices of common SageMaker GPU instances in us-east-1; a price given on
// the command line always wins.
//
// All figures are approximate and labelled so: the table is a dated
// snapshot, prices differ by region and change, savings plans and
// reserved capacity are ignored, and a real-time endpoint bills for every
// hour it exists, not only while a benchmark runs. The package does no I/O
// beyond writing to the io.Writer it is given.
package cost

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/table"
)

// TableRegion and TableAsOf say where and when the built-in prices apply.
const (
	TableRegion = "us-east-1"
	TableAsOf   = "2025-10"
)

// Price is an instance type's on-demand hourly price for SageMaker
// real-time inference.
type Price struct {
	InstanceType string
	USDPerHour   float64
	// GPUs is the accelerator count and kind, for display ("1x A10G").
	GPUs string
	// VCPUs and GPUCount are the instance's vCPUs and GPUs, by which
	// CloudWatch's CPUUtilization and GPUUtilization are multiplied
	// (docs/instance-choice.md).
	VCPUs, GPUCount int
}

// prices: on-demand SageMaker real-time inference prices in us-east-1 as
// published on aws.amazon.com/sagemaker/pricing around TableAsOf (USD per
// instance-hour), with each type's vCPUs and GPUs. Approximate: check the pricing page for your region and
// date, and pass --price-per-hour to override.
var prices = []Price{
	{"ml.g4dn.xlarge", 0.736, "1x T4", 4, 1},
	{"ml.g4dn.2xlarge", 1.053, "1x T4", 8, 1},
	{"ml.g4dn.12xlarge", 4.89, "4x T4", 48, 4},
	{"ml.g5.xlarge", 1.408, "1x A10G", 4, 1},
	{"ml.g5.2xlarge", 1.515, "1x A10G", 8, 1},
	{"ml.g5.4xlarge", 2.03, "1x A10G", 16, 1},
	{"ml.g5.8xlarge", 3.06, "1x A10G", 32, 1},
	{"ml.g5.12xlarge", 7.09, "4x A10G", 48, 4},
	{"ml.g5.24xlarge", 10.18, "4x A10G", 96, 4},
	{"ml.g5.48xlarge", 20.36, "8x A10G", 192, 8},
	{"ml.g6.xlarge", 1.0064, "1x L4", 4, 1},
	{"ml.g6.2xlarge", 1.222, "1x L4", 8, 1},
	{"ml.g6.12xlarge", 5.752, "4x L4", 48, 4},
	{"ml.g6e.xlarge", 2.336, "1x L40S", 4, 1},
	{"ml.g6e.12xlarge", 13.117, "4x L40S", 48, 4},
	{"ml.p4d.24xlarge", 37.688, "8x A100 40GB", 96, 8},
	{"ml.p5.48xlarge", 113.068, "8x H100", 192, 8},
}

// Table returns the built-in prices, sorted by instance type.
func Table() []Price {
	out := append([]Price(nil), prices...)
	sort.Slice(out, func(i, j int) bool { return out[i].InstanceType < out[j].InstanceType })
	return out
}

// Lookup finds an instance type in the built-in table (case-insensitive;
// the "ml." prefix may be left out).
func Lookup(instanceType string) (Price, bool) {
	name := strings.ToLower(strings.TrimSpace(instanceType))
	if !strings.HasPrefix(name, "ml.") {
		name = "ml." + name
	}
	for _, p := range prices {
		if p.InstanceType == name {
			return p, true
		}
	}
	return Price{}, false
}

// Source labels for Estimate.PriceSource.
const (
	SourceFlag  = "--price-per-hour"
	SourceTable = "built-in table (" + TableRegion + " on-demand, " + TableAsOf + ", approximate)"
)

// Resolve picks the hourly price: pricePerHour when > 0, else the table
// entry for instanceType. ok is false when neither is available (no cost
// figures then; not an error). A negative or non-finite price, or an
// instance type not in the table without a price, is an error.
func Resolve(instanceType string, pricePerHour float64) (price float64, source string, ok bool, err error) {
	if math.IsNaN(pricePerHour) || math.IsInf(pricePerHour, 0) || pricePerHour < 0 {
		return 0, "", false, fmt.Errorf("--price-per-hour must be a positive number of USD, got %v", pricePerHour)
	}
	if pricePerHour > 0 {
		return pricePerHour, SourceFlag, true, nil
	}
	if instanceType == "" {
		return 0, "", false, nil
	}
	p, found := Lookup(instanceType)
	if !found {
		return 0, "", false, fmt.Errorf("--instance-type %q is not in the built-in price table (%s); pass --price-per-hour", instanceType, strings.Join(names(), ", "))
	}
	return p.USDPerHour, SourceTable, true, nil
}

func names() []string {
	var out []string
	for _, p := range Table() {
		out = append(out, p.InstanceType)
	}
	return out
}

// Estimate is the cost of one run. It is JSON-serialisable for the saved
// result.
type Estimate struct {
	// InstanceType is informational ("" when only a price was given).
	InstanceType string `json:"instance_type,omitempty"`
	// InstanceCount is how many instances the endpoint runs (>= 1).
	InstanceCount int `json:"instance_count"`
	// PricePerHourUSD is the price of one instance-hour.
	PricePerHourUSD float64 `json:"price_per_hour_usd"`
	// PriceSource says where the price came from (SourceFlag or
	// SourceTable).
	PriceSource string `json:"price_source"`
	// DurationSeconds is the benchmark's duration.
	DurationSeconds float64 `json:"duration_s"`
	// Requests and OutputTokens are the run's completed requests and
	// generated tokens.
	Requests     int `json:"requests"`
	OutputTokens int `json:"output_tokens"`
	// CostUSD is what the endpoint's instances cost during the run.
	CostUSD float64 `json:"cost_usd"`
	// USDPerRequest and USDPerMillionOutputTokens are nil when there were
	// no requests or no output tokens.
	USDPerRequest             *float64 `json:"usd_per_request"`
	USDPerMillionOutputTokens *float64 `json:"usd_per_1m_output_tokens"`
	// Approximate is always true: a reminder for whoever reads the JSON.
	Approximate bool `json:"approximate"`
}

// Compute prices a run: instances × price × duration, divided by requests
// and by output tokens. Example: one ml.g5.2xlarge at $1.515/h for 120 s
// serving 200 requests and 100,000 output tokens costs
// 1.515 × 120/3600 = $0.0505, i.e. $0.000253 per request and $0.505 per
// million output tokens.
func Compute(instanceType string, pricePerHour float64, instanceCount int, duration time.Duration, requests, outputTokens int, source string) (Estimate, error) {
	if pricePerHour <= 0 || math.IsNaN(pricePerHour) || math.IsInf(pricePerHour, 0) {
		return Estimate{}, errors.New("cost: price per hour must be positive")
	}
	if instanceCount < 1 {
		return Estimate{}, fmt.Errorf("cost: instance count must be at least 1, got %d", instanceCount)
	}
	if duration < 0 || requests < 0 || outputTokens < 0 {
		return Estimate{}, errors.New("cost: negative duration or count")
	}
	e := Estimate{
		InstanceType:    instanceType,
		InstanceCount:   instanceCount,
		PricePerHourUSD: pricePerHour,
		PriceSource:     source,
		DurationSeconds: duration.Seconds(),
		Requests:        requests,
		OutputTokens:    outputTokens,
		CostUSD:         pricePerHour * float64(instanceCount) * duration.Hours(),
		Approximate:     true,
	}
	if requests > 0 {
		v := e.CostUSD / float64(requests)
		e.USDPerRequest = &v
	}
	if outputTokens > 0 {
		v := e.CostUSD / float64(outputTokens) * 1e6
		e.USDPerMillionOutputTokens = &v
	}
	return e, nil
}

// Table is the estimate as a section of vLLM's console layout.
func (e *Estimate) Table() *table.Table {
	t := table.NewLabelled("Cost (approximate)")
	inst := e.InstanceType
	if inst == "" {
		inst = "instance"
	}
	t.Add("Instance:", fmt.Sprintf("%s x%d @ $%s/h", inst, e.InstanceCount, strconv.FormatFloat(e.PricePerHourUSD, 'f', -1, 64)))
	t.Add("Price source:", e.PriceSource)
	t.Add("Cost of the run (USD):", strconv.FormatFloat(e.CostUSD, 'f', 4, 64))
	t.Add("Cost per request (USD):", opt(e.USDPerRequest, 6))
	t.Add("Cost per 1M output tokens (USD):", opt(e.USDPerMillionOutputTokens, 4))
	return t
}

// Write prints the estimate as a section in vLLM's table style.
func (e *Estimate) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, l := range table.SectionLines(e.Table(), '-') {
		bw.WriteString(l)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// WriteEndpointReminder prints the one-line reminder shown after a
// SageMaker run: the endpoint keeps billing until deleted, and how to
// delete it.
func WriteEndpointReminder(w io.Writer, endpointName, region string) error {
	cmd := "aws sagemaker delete-endpoint --endpoint-name " + endpointName
	if region != "" {
		cmd += " --region " + region
	}
	_, err := fmt.Fprintf(w, "Reminder: real-time endpoint %s bills per instance-hour until it is deleted; when done: %s\n", endpointName, cmd)
	return err
}

func opt(v *float64, prec int) string {
	if v == nil {
		return "n/a"
	}
	return strconv.FormatFloat(*v, 'f', prec, 64)
}
