package cli

import (
	"slices"
	"testing"
)

func TestExpandNargs(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"vLLM style several values", []string{"run", "--goodput", "ttft:200", "tpot:50", "--num-prompts", "5"},
			[]string{"run", "--goodput", "ttft:200", "--goodput", "tpot:50", "--num-prompts", "5"}},
		{"underscore spelling", []string{"--lora_modules", "a", "b"},
			[]string{"--lora_modules", "a", "--lora_modules", "b"}},
		{"single value untouched", []string{"--header", "x=1"}, []string{"--header", "x=1"}},
		{"equals form untouched", []string{"--goodput=ttft:1", "tpot:2"}, []string{"--goodput=ttft:1", "tpot:2"}},
		{"stops at double dash", []string{"--goodput", "ttft:1", "--", "tpot:2"},
			[]string{"--goodput", "ttft:1", "--", "tpot:2"}},
		{"other flags untouched", []string{"--model", "m", "x"}, []string{"--model", "m", "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := expandNargs(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("expandNargs(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
