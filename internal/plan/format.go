package plan

import (
	"fmt"
	"io"
)

// CheckFormat checks plan's --format: "table" (WriteText) or "json" (the
// plan file, WriteJSON).
func CheckFormat(format string) error {
	if format != "table" && format != "json" {
		return fmt.Errorf("--format %q: want table or json", format)
	}
	return nil
}

// Write writes p in format: "json" the plan file (WriteJSON), else the
// table (WriteText).
func Write(w io.Writer, p *Plan, format string) error {
	if format == "json" {
		return WriteJSON(w, p)
	}
	return WriteText(w, p)
}
