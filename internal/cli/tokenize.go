package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/hfhub"
	"github.com/llmbench/llmbench/internal/tokenizer"
)

// newTokenizeCmd builds "llmbench tokenize": print the token ids of a text
// as the Hugging Face tokenizer gives them.
func newTokenizeCmd(env *Env) *cobra.Command {
	var (
		name, revision, batch string
		addSpecial            bool
	)
	cmd := &cobra.Command{
		Use:   "tokenize --tokenizer T [--add-special-tokens] [TEXT | --batch FILE.json]",
		Short: "Print the token ids of a text, as the Hugging Face tokenizers library gives them",
		Long: `Print the token ids of TEXT (standard input when TEXT is absent, taken
byte for byte, trailing newline included) on one line as a JSON array, then
their count.

--tokenizer is a tokenizer.json file, a folder holding one, a Hugging Face hub
id (read from the local Hugging Face cache, else downloaded into it; HF_HOME,
HF_HUB_CACHE, HF_ENDPOINT, HF_TOKEN and HF_HUB_OFFLINE apply), or an OpenAI
encoding name (cl100k_base, o200k_base).

With --batch FILE.json (a JSON array of strings) it prints a JSON array of id
lists instead, one per string, in order.`,
		Args: argsBetween(0, 1, "want at most one TEXT (quote it)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if name == "" {
				return usageErrorf("tokenize: --tokenizer is required")
			}
			if batch != "" && len(args) > 0 {
				return usageErrorf("tokenize: give TEXT or --batch, not both")
			}
			texts, err := tokenizer.ReadBatch(batch)
			if err != nil {
				return &UsageError{Err: fmt.Errorf("tokenize: %w", err)}
			}
			tok, err := tokenizer.Load(cmd.Context(), name, tokenizer.Options{Revision: revision, Hub: hfhub.FromEnv(env.Getenv)})
			if err != nil {
				return tokenizerError(err)
			}
			if batch != "" {
				return tok.WriteBatch(env.Stdout, texts, addSpecial)
			}
			text, err := tokenizer.ReadText(args, env.Stdin)
			if err != nil {
				return fmt.Errorf("tokenize: %w", err)
			}
			return tokenizer.WriteIDs(env.Stdout, tok.Encode(text, addSpecial))
		},
	}
	f := cmd.Flags()
	f.StringVar(&name, "tokenizer", "", "tokenizer: tokenizer.json file or folder, hub id, or cl100k_base/o200k_base")
	f.StringVar(&revision, "tokenizer-revision", "", `hub revision (branch, tag or commit) of --tokenizer (default "main")`)
	f.BoolVar(&addSpecial, "add-special-tokens", false, "add the special tokens the tokenizer's post-processor adds (e.g. BOS)")
	f.StringVar(&batch, "batch", "", "JSON file with an array of strings; prints a JSON array of id lists")
	return cmd
}
