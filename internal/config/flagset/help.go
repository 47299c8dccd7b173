package flagset

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/llmbench/llmbench/internal/editdist"
)

// Help is what a grouped help page shows; the caller (cobra, in package
// cli) fills it from the command.
type Help struct {
	// Long is the command's description; "" prints none.
	Long string
	// Usage is the usage line, e.g. "llmbench run [flags]".
	Usage string
	// Example is the examples block, printed as is; "" prints none.
	Example string
	// Flags are the command's own flags, printed in Sections.
	Flags *pflag.FlagSet
}

// WriteHelp writes h: the description, the usage line, the examples, then
// the flags sorted into Sections, each wrapped to width columns.
func WriteHelp(w io.Writer, h Help, width int) {
	if h.Long != "" {
		fmt.Fprintln(w, strings.TrimSpace(h.Long))
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "Usage:\n  %s\n\n", h.Usage)
	if h.Example != "" {
		fmt.Fprintf(w, "Examples:\n%s\n\n", h.Example)
	}
	for _, s := range Sections(h.Flags) {
		fmt.Fprintf(w, "%s:\n%s\n", s.Title, s.Flags.FlagUsagesWrapped(width-1))
	}
	fmt.Fprintln(w, "Underscore spellings work too (--max_concurrency). Docs: README.md, docs/.")
}

// TerminalWidth is the width help lines wrap at: w's when it is a
// terminal, else $COLUMNS (read with getenv), else 80; never under 60.
func TerminalWidth(w io.Writer, getenv func(string) string) int {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil {
			return max(cols, 60)
		}
	}
	if c, err := strconv.Atoi(getenv("COLUMNS")); err == nil {
		return max(c, 60)
	}
	return 80
}

// Suggest returns the flag on fs closest to name, an unknown flag's name
// without its dashes, for a "did you mean --x?" hint: the first in fs's
// order at the smallest edit distance, when that distance is under 4;
// else "".
func Suggest(fs *pflag.FlagSet, name string) string {
	best, bestD := "", 4
	fs.VisitAll(func(f *pflag.Flag) {
		if d := editdist.Levenshtein(name, f.Name); d < bestD {
			best, bestD = f.Name, d
		}
	})
	return best
}
