package cli

import "strings"

// nargsFlags are the flags that vLLM declares with nargs="+": users write
// "--goodput ttft:200 tpot:50". pflag takes one value per occurrence, so
// expandNargs rewrites such runs into repeated flags before parsing.
var nargsFlags = map[string]bool{
	"goodput":      true,
	"header":       true,
	"metadata":     true,
	"lora-modules": true,
}

// expandNargs rewrites "--goodput a b --x" into "--goodput a --goodput b
// --x". Values that start with "-" end the run, as in argparse; so does "--".
// Underscore spellings (--max_concurrency style) are recognised too.
func expandNargs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		out = append(out, a)
		if !strings.HasPrefix(a, "--") || strings.Contains(a, "=") {
			continue
		}
		name := strings.ReplaceAll(strings.TrimPrefix(a, "--"), "_", "-")
		if !nargsFlags[name] {
			continue
		}
		// The first value belongs to the flag as written; each further value
		// gets the flag repeated in front of it.
		first := true
		for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			if !first {
				out = append(out, a)
			}
			out = append(out, args[i+1])
			first = false
			i++
		}
	}
	return out
}
