package plan

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/llmbench/llmbench/internal/capacity"
)

// HPA is a Kubernetes HorizontalPodAutoscaler (autoscaling/v2) that
// realises the plan, as deploy/k8s/hpa-example.yaml does by hand: a Pods
// metric of requests in flight per pod (vllm_requests_in_flight, from
// vLLM's running + waiting requests through prometheus-adapter) with the
// target the plan sized replicas for.
type HPA struct {
	// Label is the candidate it is for.
	Label string `json:"label"`
	// AverageValue is the target requests in flight per pod: the target
	// utilisation × one replica's max load under the SLA (for a
	// request-rate sweep, its planned rate × E2EL, by Little's law),
	// rounded to thousandths, the precision of a Kubernetes quantity
	// ("6.4" is stored as 6400m).
	AverageValue float64 `json:"average_value"`
	// AverageValueInteger is AverageValue rounded down, at least 1, for
	// a pipeline that only takes whole numbers: rounding down scales out
	// earlier, never later.
	AverageValueInteger int `json:"average_value_integer"`
	// MinReplicas (at least 1, as the HPA requires) and MaxReplicas are
	// the plan's fewest and most replicas.
	MinReplicas int `json:"min_replicas"`
	MaxReplicas int `json:"max_replicas"`
	// ScaleDownStabilizationWindowSeconds is the scale-down delay (the
	// HPA takes at most 3600).
	ScaleDownStabilizationWindowSeconds int `json:"scale_down_stabilization_window_seconds"`
	// Manifest is the HPA as YAML, ready to apply after naming the
	// Deployment.
	Manifest string `json:"manifest"`
}

// maxStabilization is the HPA's limit on stabilizationWindowSeconds.
const maxStabilization = 3600

// hpaFor is the HPA that realises c's plan.
func hpaFor(c *Candidate, cfg Config) *HPA {
	perPod := *c.PlannedLoadPerReplica
	metricNote := fmt.Sprintf("%g × the max load under the SLA per replica (%s)", cfg.TargetUtilisation, fnum(*c.MaxLoadUnderSLA))
	if c.LoadKind == capacity.RequestRate {
		perPod *= c.LittlesLaw.seconds()
		metricNote = fmt.Sprintf("%g × the max rate under the SLA per replica (%s req/s) × mean E2EL %.0f ms (Little's law)",
			cfg.TargetUtilisation, fnum(*c.MaxLoadUnderSLA), c.LittlesLaw.MeanE2ELMs)
	}
	h := &HPA{Label: c.Label, AverageValue: math.Round(perPod*1000) / 1000, MinReplicas: max(c.MinReplicas, 1), MaxReplicas: max(c.PeakReplicas, 1),
		ScaleDownStabilizationWindowSeconds: min(delaySeconds(cfg.ScaleDownDelay), maxStabilization)}
	h.AverageValueInteger = max(int(math.Floor(h.AverageValue)), 1)
	var b strings.Builder
	fmt.Fprintf(&b, "# llmbench plan for %s: scale on requests in flight per pod.\n", c.Label)
	fmt.Fprintf(&b, "# averageValue = %s = %s.\n", fnum(h.AverageValue), metricNote)
	fmt.Fprintf(&b, "# Where only a whole number is taken, use %d (rounded down: scales out earlier).\n", h.AverageValueInteger)
	fmt.Fprintf(&b, "# The scale-up delay (%s s) is how long a new pod takes to serve, not a setting.\n", fnum(cfg.ScaleUpDelay.Seconds()))
	b.WriteString(`apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: vllm
  annotations:
`)
	sized, _ := json.Marshal(fmt.Sprintf("llmbench plan %s: max_load_under_sla=%s, target %gx", c.Label, fnum(*c.MaxLoadUnderSLA), cfg.TargetUtilisation))
	fmt.Fprintf(&b, "    llmbench.dev/sized-by: %s\n", sized)
	fmt.Fprintf(&b, `spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: vllm
  minReplicas: %d
  maxReplicas: %d
  metrics:
    - type: Pods
      pods:
        metric:
          name: vllm_requests_in_flight
        target:
          type: AverageValue
          averageValue: "%s"
  behavior:
    scaleUp:
      stabilizationWindowSeconds: 0
    scaleDown:
      stabilizationWindowSeconds: %d
`, h.MinReplicas, h.MaxReplicas, fnum(h.AverageValue), h.ScaleDownStabilizationWindowSeconds)
	h.Manifest = b.String()
	return h
}

// SageMaker is Application Auto Scaling target tracking on the predefined
// metric SageMakerVariantInvocationsPerInstance (invocations per instance
// per minute) that realises the plan.
type SageMaker struct {
	// Label is the candidate it is for.
	Label string `json:"label"`
	// TargetInvocationsPerInstancePerMinute is 60 × the sweep's completed
	// requests per second at the planned load (interpolated between the
	// steps around it, from 0 at load 0) ÷ the sweep's instance count,
	// rounded to tenths.
	TargetInvocationsPerInstancePerMinute float64 `json:"target_invocations_per_instance_per_minute"`
	// MinCapacity (at least 1) and MaxCapacity are the plan's fewest and
	// most instances.
	MinCapacity int `json:"min_capacity"`
	MaxCapacity int `json:"max_capacity"`
	// RegisterScalableTarget is the aws CLI call that sets them.
	RegisterScalableTarget string `json:"register_scalable_target"`
	// PutScalingPolicy is the input of "aws application-autoscaling
	// put-scaling-policy --cli-input-json file://policy.json".
	PutScalingPolicy ScalingPolicy `json:"put_scaling_policy"`
}

// ScalingPolicy is a PutScalingPolicy request, with the API's own keys.
type ScalingPolicy struct {
	PolicyName                               string         `json:"PolicyName"`
	ServiceNamespace                         string         `json:"ServiceNamespace"`
	ResourceID                               string         `json:"ResourceId"`
	ScalableDimension                        string         `json:"ScalableDimension"`
	PolicyType                               string         `json:"PolicyType"`
	TargetTrackingScalingPolicyConfiguration TargetTracking `json:"TargetTrackingScalingPolicyConfiguration"`
}

// TargetTracking is a TargetTrackingScalingPolicyConfiguration: the
// target, the predefined metric, and cooldowns in seconds (scale-in: the
// plan's scale-down delay; scale-out: its scale-up delay, so that one
// scale-out is not repeated while its instances start).
type TargetTracking struct {
	TargetValue                   float64          `json:"TargetValue"`
	PredefinedMetricSpecification PredefinedMetric `json:"PredefinedMetricSpecification"`
	ScaleInCooldown               int              `json:"ScaleInCooldown"`
	ScaleOutCooldown              int              `json:"ScaleOutCooldown"`
}

// PredefinedMetric names a predefined metric.
type PredefinedMetric struct {
	PredefinedMetricType string `json:"PredefinedMetricType"`
}

// Placeholders for the endpoint the settings are for, when not given.
const (
	DefaultEndpointName = "ENDPOINT_NAME"
	DefaultVariant      = "AllTraffic"
)

// sageMakerFor is the target tracking that realises c's plan.
func sageMakerFor(c *Candidate, cfg Config) *SageMaker {
	ep, variant := cfg.EndpointName, cfg.Variant
	if ep == "" {
		ep = DefaultEndpointName
	}
	if variant == "" {
		variant = DefaultVariant
	}
	rps := throughputAt(c.sweep, c.plannedUnit)
	target := math.Round(60*rps/float64(c.InstancesPerEndpoint)*10) / 10
	s := &SageMaker{Label: c.Label, TargetInvocationsPerInstancePerMinute: target, MinCapacity: max(c.MinReplicas, 1), MaxCapacity: max(c.PeakReplicas, 1)}
	resource := "endpoint/" + ep + "/variant/" + variant
	s.RegisterScalableTarget = fmt.Sprintf("aws application-autoscaling register-scalable-target --service-namespace sagemaker --resource-id %s --scalable-dimension sagemaker:variant:DesiredInstanceCount --min-capacity %d --max-capacity %d",
		resource, s.MinCapacity, s.MaxCapacity)
	s.PutScalingPolicy = ScalingPolicy{PolicyName: "llmbench-plan-" + policyName(c.Label), ServiceNamespace: "sagemaker", ResourceID: resource,
		ScalableDimension: "sagemaker:variant:DesiredInstanceCount", PolicyType: "TargetTrackingScaling",
		TargetTrackingScalingPolicyConfiguration: TargetTracking{TargetValue: target,
			PredefinedMetricSpecification: PredefinedMetric{PredefinedMetricType: "SageMakerVariantInvocationsPerInstance"},
			ScaleInCooldown:               delaySeconds(cfg.ScaleDownDelay), ScaleOutCooldown: delaySeconds(cfg.ScaleUpDelay)}}
	return s
}

// policyName keeps a label's letters, digits, '-' and '_' ("g5.2xlarge"
// becomes "g5-2xlarge"): a policy name is safe in a shell and the console.
func policyName(label string) string {
	b := []byte(label)
	for i, ch := range b {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '-' || ch == '_') {
			b[i] = '-'
		}
	}
	return string(b)
}

// throughputAt is the sweep's completed requests per second at load,
// linear between the counted steps around it and from (0, 0) below the
// first: at a load where latency has not yet risen, throughput grows in
// proportion (Little's law at a constant E2EL).
func throughputAt(s *capacity.Sweep, load float64) float64 {
	x0, y0 := 0.0, 0.0
	for i := range s.Steps {
		r := &s.Steps[i]
		if r.HarnessLimited || r.Load <= x0 {
			continue
		}
		if r.Load >= load {
			return y0 + (r.RequestThroughput-y0)*(load-x0)/(r.Load-x0)
		}
		x0, y0 = r.Load, r.RequestThroughput
	}
	return y0
}
