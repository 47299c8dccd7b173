package bench

import "strings"

// FirstError is the first failed record's error on one line ("none"
// when no request failed): the example a run or a sweep step where
// nothing answered gives of what went wrong.
func (o *Outcome) FirstError() string {
	for i := range o.Records {
		if r := &o.Records[i]; !r.Success {
			return strings.Join(strings.Fields(r.Error), " ")
		}
	}
	return "none"
}
