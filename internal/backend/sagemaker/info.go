package sagemaker

import (
	"net"
	"net/url"
)

// ResultInfo is what a saved result records of the endpoint: never the
// custom attributes' value or anything from the credentials. Empty
// settings are left out; instanceType is the priced instance ("" = none).
func (c Config) ResultInfo(instanceType string) map[string]any {
	m := map[string]any{
		"endpoint_name":  c.EndpointName,
		"payload_format": string(c.Format),
	}
	add := func(k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	add("region", c.AWS.Region)
	add("endpoint_url", c.AWS.EndpointURL)
	add("target_variant", c.TargetVariant)
	add("target_container_hostname", c.TargetContainerHostname)
	add("inference_component", c.InferenceComponent)
	if c.CustomAttributes != "" {
		m["custom_attributes"] = "[redacted]"
	}
	add("instance_type", instanceType)
	return m
}

// Local reports an EndpointURL on this machine (our proxy or simulator),
// which bills nobody; a VPC endpoint URL still reaches a billed endpoint.
func (c AWSConfig) Local() bool {
	if c.EndpointURL == "" {
		return false
	}
	u, err := url.Parse(c.EndpointURL)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
