package record

import (
	"fmt"
	"strings"
)

// CheckMetadata checks --metadata KEY=VALUE items (Params.Metadata keeps
// them as given).
func CheckMetadata(items []string) error {
	for _, it := range items {
		if k, _, ok := strings.Cut(it, "="); !ok || strings.TrimSpace(k) == "" {
			return fmt.Errorf("--metadata %q: want KEY=VALUE", it)
		}
	}
	return nil
}
