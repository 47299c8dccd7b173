package cost

import (
	"io"
	"time"
)

// Instance is the priced endpoint of a run or a sweep as the user gave it
// (--instance-type, --instance-count, --price-per-hour): a price on the
// command line wins over the built-in table (Resolve).
type Instance struct {
	// Type is the instance type ("" when only a price was given).
	Type string
	// Count is how many instances serve the endpoint (below 1 counts
	// as 1).
	Count int
	// PricePerHour is USD per instance-hour (0: from the table).
	PricePerHour float64
}

// Price resolves the hourly price and says where it came from; ok is
// false when neither a price nor a known type was given (Resolve).
func (i Instance) Price() (usdPerHour float64, source string, ok bool, err error) {
	return Resolve(i.Type, i.PricePerHour)
}

// Estimate prices a run on the instances (Compute): duration is the
// benchmark's, requests the completed ones, outputTokens their output.
// It is nil, nil when no price was given.
func (i Instance) Estimate(duration time.Duration, requests, outputTokens int) (*Estimate, error) {
	price, source, ok, err := i.Price()
	if err != nil || !ok {
		return nil, err
	}
	e, err := Compute(i.Type, price, max(i.Count, 1), duration, requests, outputTokens, source)
	if err != nil {
		return nil, err
	}
	return &e, nil
}

// WriteAfterRun prints what a run says of money: est's section (when not
// nil), then, when endpointName is not "" (a SageMaker endpoint that
// bills: not a local proxy or simulator), the reminder to delete it.
func WriteAfterRun(w io.Writer, est *Estimate, endpointName, region string) error {
	if est != nil {
		if err := est.Write(w); err != nil {
			return err
		}
	}
	if endpointName == "" {
		return nil
	}
	return WriteEndpointReminder(w, endpointName, region)
}
