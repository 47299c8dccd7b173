package dataset

import _ "embed"

// BuiltinShareGPT is a --dataset-path value (with --dataset-name sharegpt)
// naming the small ShareGPT sample built into llmbench: 51 original
// conversations, a few of which vLLM's filters drop. It lets the demo run
// a conversational workload without any download.
const BuiltinShareGPT = "builtin:sharegpt-sample"

// builtinShareGPTData is testdata/dataset/sharegpt_sample.json (a test keeps the
// two copies identical; go:embed cannot reach testdata/ from here).
//
//go:embed sample/sharegpt_sample.json
var builtinShareGPTData []byte
