package dataset

import (
	_ "embed"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/llmbench/llmbench/internal/pyrand"
)

// BuiltinSonnet is a --dataset-path value (with --dataset-name sonnet)
// naming the sonnet text built into llmbench: the 518 lines of
// Shakespeare's sonnets (public domain) that vLLM ships as
// benchmarks/sonnet.txt, byte for byte.
const BuiltinSonnet = "builtin:sonnet"

//go:embed sample/sonnet.txt
var builtinSonnetData string

// sonnetBasePrompt is vLLM's instruction that starts every sonnet prompt.
const sonnetBasePrompt = "Pick as many lines as you can from these poem lines:\n"

// maxSonnetDraws bounds the draws per accepted sonnet request: vLLM redraws
// until a prompt fits --sonnet-input-len, forever if none can.
const maxSonnetDraws = 1000

// loadSonnet is vLLM's sonnet dataset: every prompt is the instruction
// line, the first lines of the poem as a shared prefix (about
// --sonnet-prefix-len tokens), then lines drawn at random (Python's
// random.choices, seeded with --seed) up to about --sonnet-input-len
// tokens; a draw longer than --sonnet-input-len is redrawn. Line counts
// come from the average tokens per line (each line encoded with special
// tokens, as vLLM does) and Python's round().
//
// vLLM renders the chat template client-side and counts prompt_len on the
// rendered text (and sends it to completions endpoints); llmbench has no
// template engine, so it counts and sends the raw prompt (chat endpoints
// get it as the one user message and apply the server's template, as with
// vLLM's openai-chat backend). A warning says so.
func loadSonnet(cfg Config, tok Tokenizer) ([]Request, []string, error) {
	text, err := sonnetText(cfg.Path)
	if err != nil {
		return nil, nil, err
	}
	// Python's text mode reads "\r\n" as "\n".
	lines := strings.SplitAfter(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return nil, nil, fmt.Errorf("%s: no lines", cfg.Path)
	}
	count := func(s string) int { return estimateTokens(s) }
	warnings := []string{"sonnet: no chat template is applied (llmbench has no template engine): prompt_len counts the raw prompt, which completions endpoints receive as-is, while vLLM counts and sends the chat-formatted prompt"}
	if tok != nil {
		count = func(s string) int { return len(tok.Encode(s, true)) }
	} else {
		warnings = append(warnings, "sonnet without a tokenizer: prompt lengths are estimated as one token per 4 bytes (approximate)")
	}
	total := 0
	for _, l := range lines {
		total += count(l)
	}
	avg := float64(total) / float64(len(lines))
	base := count(sonnetBasePrompt)
	if cfg.SonnetInputLen <= base {
		return nil, warnings, configErrorf("--sonnet-input-len (%d) must be higher than the base prompt length (%d)", cfg.SonnetInputLen, base)
	}
	numInput := max(int(math.RoundToEven(float64(cfg.SonnetInputLen-base)/avg)), 1)
	numPrefix := max(int(math.RoundToEven(float64(cfg.SonnetPrefixLen-base)/avg)), 0)
	prefix := sonnetBasePrompt + strings.Join(lines[:min(numPrefix, len(lines))], "")
	r := pyrand.New(cfg.Seed)
	reqs := make([]Request, 0, cfg.NumPrompts)
	for draws := 0; len(reqs) < cfg.NumPrompts; draws++ {
		if draws >= maxSonnetDraws*(len(reqs)+1) {
			return nil, warnings, configErrorf("sonnet: no draw of %d lines fits --sonnet-input-len %d in %d tries; raise --sonnet-input-len or lower --sonnet-prefix-len", numInput, cfg.SonnetInputLen, draws)
		}
		var sb strings.Builder
		sb.WriteString(prefix)
		n := float64(len(lines))
		for range max(numInput-numPrefix, 0) {
			sb.WriteString(lines[int(math.Floor(pyRandom(r)*n))])
		}
		prompt := sb.String()
		if l := count(prompt); l <= cfg.SonnetInputLen {
			reqs = append(reqs, Request{Prompt: prompt, PromptLen: l, OutputLen: cfg.SonnetOutputLen, PrefixID: -1})
		}
	}
	return reqs, warnings, nil
}

// sonnetText reads the poem file, or the built-in copy for BuiltinSonnet.
func sonnetText(path string) (string, error) {
	if path == BuiltinSonnet {
		return builtinSonnetData, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return string(b), nil
}
