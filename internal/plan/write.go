package plan

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/llmbench/llmbench/internal/table"
)

// Kind is the value of the plan file's "kind" key, by which readers tell
// a plan file from a result or a sweep.
const Kind = "llmbench_plan"

// FileName is the plan file's name: plan-{date}.json, date the run's
// timestamp (20260101-000000).
func FileName(date string) string { return "plan-" + date + ".json" }

// file is the plan as saved: the kind marker first.
type file struct {
	Kind string `json:"kind"`
	*Plan
}

// WriteJSON writes the plan file: the Plan with "kind": Kind, indented
// by two spaces, keys in a fixed order, with a trailing newline.
func WriteJSON(w io.Writer, p *Plan) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // "<" stays "<" in SLA terms
	enc.SetIndent("", "  ")
	if err := enc.Encode(file{Kind: Kind, Plan: p}); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// IsPlan reports whether data is a plan file (a JSON object whose "kind"
// is Kind).
func IsPlan(data []byte) bool {
	var head struct {
		Kind string `json:"kind"`
	}
	return json.Unmarshal(data, &head) == nil && head.Kind == Kind
}

// Read decodes a plan file; content that is not one is an error.
func Read(data []byte) (*Plan, error) {
	if !IsPlan(data) {
		return nil, fmt.Errorf("not a plan file (no \"kind\": %q)", Kind)
	}
	var f file
	f.Plan = &Plan{}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("invalid plan file: %v", err)
	}
	return f.Plan, nil
}

// WriteText writes the plan for a terminal: the demand and rules, one row
// per candidate, the replicas slot by slot, the summary and notes, then
// the autoscaler settings.
func WriteText(w io.Writer, p *Plan) error {
	bw := bufio.NewWriter(w)
	d := &p.Demand
	fmt.Fprintf(bw, "Demand: %s (%d slots, %s; peak %s at %s)\n", d.Source, d.Slots, d.Unit, fnum(d.Peak), d.PeakTime)
	s := &p.Settings
	fmt.Fprintf(bw, "Rules: replicas = ceil(demand ÷ (max load under the SLA × %g)), at least %d; scale-up delay %s s, scale-down delay %s s; a month is %s h\n",
		s.TargetUtilisation, s.MinReplicas, fnum(s.ScaleUpDelayS), fnum(s.ScaleDownDelayS), fnum(s.HoursPerMonth))
	for i := range p.Candidates {
		if l := p.Candidates[i].LittlesLaw; l != nil {
			fmt.Fprintf(bw, "Little's law (%s): users = requests/s × (mean E2EL %.1f ms + think time %s s), from its step at load %s\n",
				p.Candidates[i].Label, l.MeanE2ELMs, fnum(l.ThinkTimeS), fnum(l.AtLoad))
		}
	}
	bw.WriteString("\n")
	if err := table.WriteText(bw, CandidatesTable(p, false), TextStyle); err != nil {
		return err
	}
	writeSlots(bw, p)
	fmt.Fprintf(bw, "\n%s\n", p.Summary)
	if r := p.Recommendation; r != nil {
		fmt.Fprintf(bw, "Why %s: %s.\n", r.Label, r.Why)
	}
	for _, n := range p.Notes {
		fmt.Fprintf(bw, "Note: %s\n", n)
	}
	if h := p.HPA; h != nil {
		fmt.Fprintf(bw, "\nKubernetes HPA (%s): averageValue %s requests in flight per pod (%d where a whole number is needed), %d to %d replicas\n---\n%s",
			h.Label, fnum(h.AverageValue), h.AverageValueInteger, h.MinReplicas, h.MaxReplicas, h.Manifest)
	}
	if sm := p.SageMaker; sm != nil {
		fmt.Fprintf(bw, "\nSageMaker target tracking (%s): %s invocations per instance per minute, %d to %d instances\n%s\n",
			sm.Label, fnum(sm.TargetInvocationsPerInstancePerMinute), sm.MinCapacity, sm.MaxCapacity, sm.RegisterScalableTarget)
		policy, err := json.MarshalIndent(sm.PutScalingPolicy, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(bw, "aws application-autoscaling put-scaling-policy --cli-input-json file://policy.json  # policy.json:\n%s\n", policy)
	}
	return bw.Flush()
}

// writeSlots is the day slot by slot: the demand and each planned
// candidate's replicas (SlotsTable).
func writeSlots(w *bufio.Writer, p *Plan) {
	if t := SlotsTable(p, false); t != nil {
		fmt.Fprintf(w, "\nReplicas per slot (overrun user-minutes in brackets):\n")
		table.WriteText(w, t, TextStyle)
	}
}
