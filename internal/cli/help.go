package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/config/flagset"
)

// groupedHelp prints a command's help with its flags in sections, each
// wrapped to the terminal's width (flagset.WriteHelp).
func groupedHelp(cmd *cobra.Command, _ []string) {
	w := cmd.OutOrStdout()
	h := flagset.Help{Long: cmd.Long, Usage: cmd.UseLine(), Example: cmd.Example, Flags: cmd.LocalFlags()}
	flagset.WriteHelp(w, h, flagset.TerminalWidth(w, os.Getenv))
}

// suggestFlag adds "did you mean --x?" to an unknown-flag error.
func suggestFlag(cmd *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	best := flagset.Suggest(cmd.Flags(), name)
	if best == "" {
		return fmt.Errorf("%w (see %s --help)", err, cmd.CommandPath())
	}
	return fmt.Errorf("%w: did you mean --%s?", err, best)
}
