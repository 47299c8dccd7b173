package calibrate

import (
	"context"
	"fmt"
	"io"
)

// RunAndSave runs the calibration (Run, its table to out) and, when save
// is not "", saves it there (Save) and says so on out. An error saving
// names --save; the caller checked c (Check), which gave perRep.
func RunAndSave(ctx context.Context, c *Config, perRep []int, run RepetitionFunc, out io.Writer, save string) error {
	res, err := Run(ctx, c, perRep, run, out)
	if err != nil || save == "" {
		return err
	}
	if err := Save(save, res); err != nil {
		return fmt.Errorf("calibrate: --save: %w", err)
	}
	fmt.Fprintf(out, "Calibration saved to %s\n", save)
	return nil
}
