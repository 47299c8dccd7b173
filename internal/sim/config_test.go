package sim

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mutate func(*Config)
		want   string // "" = valid
	}{
		{"default is valid", func(*Config) {}, ""},
		{"every preset is valid", nil, ""},
		{"fixed mode ignores batching fields", func(c *Config) { c.Mode = ModeFixed; c.Batching = Batching{} }, ""},
		{"empty model", func(c *Config) { c.Model = "" }, "model name is empty"},
		{"unknown mode", func(c *Config) { c.Mode = "turbo" }, `mode "turbo"`},
		{"negative ttft", func(c *Config) { c.Mode = ModeFixed; c.TTFT = -1 }, "must not be negative"},
		{"zero batch", func(c *Config) { c.Batching.MaxNumSeqs = 0 }, "must be positive"},
		{"batched tokens below seqs", func(c *Config) { c.Batching.MaxNumBatchedTokens = 10; c.Batching.MaxNumSeqs = 20 }, "at least max-num-seqs"},
		{"zero prefill", func(c *Config) { c.Batching.PrefillTokensPerSec = 0 }, "prefill rate"},
		{"steps of zero time", func(c *Config) { c.Batching.DecodeBase, c.Batching.DecodePerSeq = 0, 0 }, "both be zero"},
		{"KV cache smaller than one sequence", func(c *Config) { c.Batching.KVCacheTokens = 100 }, "kv-cache-tokens"},
		{"tokens per chunk", func(c *Config) { c.TokensPerChunk = 0 }, "tokens-per-chunk"},
		{"eos rate 1", func(c *Config) { c.EOSRate = 1 }, "eos-rate"},
		{"payload format", func(c *Config) { c.PayloadFormat = "xml" }, "payload format"},
		{"fault rate above 1", func(c *Config) { c.Faults.DropRate = 1.5 }, "want 0..1"},
		{"fault rates add up", func(c *Config) { c.Faults.DropRate, c.Faults.StallRate = 0.6, 0.6 }, "add up to"},
		{"negative stall", func(c *Config) { c.Faults.StallFor = -1 }, "durations"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.mutate == nil {
				for _, p := range Presets {
					c := DefaultConfig().WithPreset(p)
					if err := c.Validate(); err != nil {
						t.Errorf("preset %s: %v", p.Name, err)
					}
				}
				return
			}
			c := DefaultConfig()
			tc.mutate(&c)
			err := c.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, err := LookupPreset("nope"); err == nil || !strings.Contains(err.Error(), "llama3-8b-a10g") {
		t.Errorf("unknown preset error %v should list the presets", err)
	}
}

func TestCheckListenAddr(t *testing.T) {
	t.Parallel()
	for addr, ok := range map[string]bool{
		"127.0.0.1:8000": true, "[::1]:0": true, "localhost:80": true, "127.1.2.3:9": true,
		"0.0.0.0:8000": false, ":8000": false, "10.0.0.1:80": false, "example.com:80": false, "nonsense": false,
	} {
		if err := CheckListenAddr(addr, false); (err == nil) != ok {
			t.Errorf("%q: err %v", addr, err)
		}
	}
	if err := CheckListenAddr("0.0.0.0:8000", true); err != nil {
		t.Errorf("allowRemote: %v", err)
	}
}

// FuzzAppendJSONString: the hand-written JSON string encoder agrees with
// encoding/json on every input (valid UTF-8 round-trips; invalid bytes
// become U+FFFD as encoding/json makes them).
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", `quote " backslash \ slash /`, "ctl \x00\x01\x1f\t\n\r", "世界 🚀 café",
		"\xff\xfe bad", "\u2028\u2029", "<tag>&amp;", "a\xe4\xb8"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var got string
		if err := json.Unmarshal(appendJSONString(nil, s), &got); err != nil {
			t.Fatalf("%q encodes to invalid JSON: %v", s, err)
		}
		ref, _ := json.Marshal(s)
		var want string
		_ = json.Unmarshal(ref, &want)
		if got != want {
			t.Fatalf("%q: got %q, encoding/json gives %q", s, got, want)
		}
		if utf8.ValidString(s) && got != s {
			t.Fatalf("valid UTF-8 %q did not round-trip: %q", s, got)
		}
	})
}
