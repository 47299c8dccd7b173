package config

import "strings"

// The names of the benchmark: section: every key is a run flag's name in
// snake_case, except the few the SageMaker project's config.yaml named
// otherwise.

// SaveResultsKey is the config's save switch; it sets --save-result and,
// when true, --save-detailed and the project's result folder.
const SaveResultsKey = "save_results"

// keyFlags are the keys whose names differ from their flag's.
var keyFlags = map[string]string{
	"percentiles":  "metric-percentiles",
	SaveResultsKey: "save-result",
}

// Renamed maps a key refused for a clearer error to the key to write
// instead (the flag's own name in snake_case, for a key of keyFlags).
var Renamed = map[string]string{
	"metric_percentiles": "percentiles",
	"save_result":        SaveResultsKey,
}

// FlagOfKey is the flag a key sets.
func FlagOfKey(key string) string {
	if f, ok := keyFlags[key]; ok {
		return f
	}
	return strings.ReplaceAll(key, "_", "-")
}

// KeyOfFlag is the key of a flag.
func KeyOfFlag(name string) string {
	for k, f := range keyFlags {
		if f == name {
			return k
		}
	}
	return strings.ReplaceAll(name, "-", "_")
}

// SaveResults is the configuration's save_results: the file's, else the
// built-in default; null is false (run's own default).
func SaveResults(file *File) bool {
	if file != nil {
		if s, ok := file.Lookup(SaveResultsKey); ok {
			return !s.Null && len(s.Values) == 1 && s.Values[0] == "true"
		}
	}
	for _, d := range Defaults {
		if d.Key == SaveResultsKey {
			return d.Value == "true"
		}
	}
	return false
}

// Nargs are the flags that vLLM declares with nargs="+": users write
// "--goodput ttft:200 tpot:50", a file may write one string of several
// values, and the resolved command writes them so.
var Nargs = map[string]bool{
	"goodput":      true,
	"header":       true,
	"metadata":     true,
	"lora-modules": true,
}

// KeyOf is the shape of the key of flag name, a boolean flag (isBool), a
// list flag (isList) or a scalar one.
func KeyOf(name string, isBool, isList bool) Key {
	var k Key
	switch {
	case isBool:
		k.Bool = true
	case isList:
		k.Many = true
		switch name {
		case "header", "metadata":
			k.PairSep = "=" // values may hold spaces: one item each
		case "goodput":
			k.PairSep, k.Fields = ":", true
		default:
			k.Fields = Nargs[name]
		}
	case name == "metric-percentiles" || name == "percentile-metrics":
		k.Join = ","
	}
	return k
}
