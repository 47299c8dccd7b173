package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

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
			var texts []string
			if batch != "" {
				b, err := os.ReadFile(batch)
				if err != nil {
					return usageErrorf("tokenize: --batch: %v", err)
				}
				if err := json.Unmarshal(b, &texts); err != nil {
					return usageErrorf("tokenize: --batch %s: want a JSON array of strings: %v", batch, err)
				}
			}
			getenv := env.Getenv
			if getenv == nil {
				getenv = os.Getenv
			}
			tok, err := tokenizer.Load(cmd.Context(), name, tokenizer.Options{Revision: revision, Hub: hfhub.FromEnv(getenv)})
			if err != nil {
				return tokenizerError(err)
			}
			if batch != "" {
				return writeBatch(env.Stdout, tok, texts, addSpecial)
			}
			var text string
			if len(args) == 1 {
				text = args[0]
			} else {
				b, err := io.ReadAll(env.Stdin)
				if err != nil {
					return fmt.Errorf("tokenize: reading standard input: %w", err)
				}
				text = string(b)
			}
			ids := tok.Encode(text, addSpecial)
			fmt.Fprintln(env.Stdout, idList(ids))
			fmt.Fprintf(env.Stdout, "%d tokens\n", len(ids))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&name, "tokenizer", "", "tokenizer: tokenizer.json file or folder, hub id, or cl100k_base/o200k_base")
	f.StringVar(&revision, "tokenizer-revision", "", `hub revision (branch, tag or commit) of --tokenizer (default "main")`)
	f.BoolVar(&addSpecial, "add-special-tokens", false, "add the special tokens the tokenizer's post-processor adds (e.g. BOS)")
	f.StringVar(&batch, "batch", "", "JSON file with an array of strings; prints a JSON array of id lists")
	return cmd
}

// idList formats ids as a compact JSON array.
func idList(ids []int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(id))
	}
	b.WriteByte(']')
	return b.String()
}

func writeBatch(w io.Writer, tok *tokenizer.Tokenizer, texts []string, addSpecial bool) error {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range texts {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(idList(tok.Encode(s, addSpecial)))
	}
	b.WriteString("]\n")
	_, err := io.WriteString(w, b.String())
	return err
}
