package sagemaker

import (
	"maps"
	"testing"
)

func TestAWSConfigLocal(t *testing.T) {
	for in, want := range map[string]bool{
		"http://127.0.0.1:8080": true, "http://localhost:1": true, "http://[::1]:9": true, "http://127.9.9.9": true,
		"https://vpce-1.runtime.sagemaker.us-east-1.vpce.amazonaws.com": false, "": false, "http://10.0.0.1:80": false,
		"://bad": false,
	} {
		if got := (AWSConfig{EndpointURL: in}).Local(); got != want {
			t.Errorf("Local(%q) = %v", in, got)
		}
	}
}

// TestResultInfo: empty settings are left out, the custom attributes
// never appear, the instance type is added when given.
func TestResultInfo(t *testing.T) {
	tests := []struct {
		name     string
		cfg      Config
		instance string
		want     map[string]any
	}{
		{"minimal", Config{EndpointName: "ep", Format: FormatOpenAIChat}, "",
			map[string]any{"endpoint_name": "ep", "payload_format": "openai-chat"}},
		{"full", Config{EndpointName: "ep", Format: FormatTGI, TargetVariant: "v1", TargetContainerHostname: "c1",
			InferenceComponent: "ic", CustomAttributes: "tenant=secret-value",
			AWS: AWSConfig{Region: "us-west-2", EndpointURL: "http://127.0.0.1:9"}}, "ml.g5.2xlarge",
			map[string]any{"endpoint_name": "ep", "payload_format": "tgi", "region": "us-west-2",
				"endpoint_url": "http://127.0.0.1:9", "target_variant": "v1", "target_container_hostname": "c1",
				"inference_component": "ic", "custom_attributes": "[redacted]", "instance_type": "ml.g5.2xlarge"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.cfg.ResultInfo(tt.instance); !maps.Equal(got, tt.want) {
				t.Errorf("ResultInfo = %v, want %v", got, tt.want)
			}
		})
	}
}
