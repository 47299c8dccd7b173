package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/llmbench/llmbench/internal/config/flagset"
	"github.com/llmbench/llmbench/internal/editdist"
)

// terminalWidth is the width help lines wrap at: the terminal's, else
// $COLUMNS, else 80; never under 60.
func terminalWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil {
			return max(cols, 60)
		}
	}
	if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil {
		return max(c, 60)
	}
	return 80
}

// groupedHelp prints a command's help with its flags in sections, each
// wrapped to the terminal's width.
func groupedHelp(cmd *cobra.Command, _ []string) {
	w := cmd.OutOrStdout()
	width := terminalWidth(w)
	if cmd.Long != "" {
		fmt.Fprintln(w, strings.TrimSpace(cmd.Long))
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "Usage:\n  %s\n\n", cmd.UseLine())
	if cmd.Example != "" {
		fmt.Fprintf(w, "Examples:\n%s\n\n", cmd.Example)
	}
	for _, s := range flagset.Sections(cmd.LocalFlags()) {
		fmt.Fprintf(w, "%s:\n%s\n", s.Title, s.Flags.FlagUsagesWrapped(width-1))
	}
	fmt.Fprintln(w, "Underscore spellings work too (--max_concurrency). Docs: README.md, docs/.")
}

// suggestFlag adds "did you mean --x?" to an unknown-flag error.
func suggestFlag(cmd *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	best, bestD := "", 4
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if d := editdist.Levenshtein(name, f.Name); d < bestD {
			best, bestD = f.Name, d
		}
	})
	if best == "" {
		return fmt.Errorf("%w (see %s --help)", err, cmd.CommandPath())
	}
	return fmt.Errorf("%w: did you mean --%s?", err, best)
}
