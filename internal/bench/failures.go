package bench

import (
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
)

// FailuresView is the summary the failure lines and warnings are printed
// from: after an interrupt, the requests the interrupt itself canceled
// are counted apart (a "misconfiguration" warning and ten canceled lines
// would blame the wrong thing); canceled is their count. The table is
// always printed from the summary itself.
func FailuresView(sum *metrics.Summary, o *Outcome) (view *metrics.Summary, canceled int) {
	if !o.Interrupted {
		return sum, 0
	}
	v := *sum
	v.FailedErrors, v.Warnings = nil, nil
	for i := range o.Records {
		r := &o.Records[i]
		switch {
		case r.Success:
		case r.ErrorClass == record.ErrCanceled:
			canceled++
		case len(v.FailedErrors) < 10:
			v.FailedErrors = append(v.FailedErrors, r.Error)
		}
	}
	v.Failed -= canceled
	for _, w := range sum.Warnings {
		if w != metrics.AllFailedWarning || v.Failed > 0 {
			v.Warnings = append(v.Warnings, w)
		}
	}
	return &v, canceled
}

// AllFailedAlike is the failure every record shares (class and HTTP
// status), as an EndpointError; nil when they differ or one succeeded.
func (o *Outcome) AllFailedAlike() *EndpointError {
	var e *EndpointError
	for i := range o.Records {
		r := &o.Records[i]
		switch {
		case r.Success:
			return nil
		case e == nil:
			e = &EndpointError{Class: r.ErrorClass, Status: r.HTTPStatus, First: r.Error}
		case e.Class != r.ErrorClass || e.Status != r.HTTPStatus:
			return nil
		}
		e.N++
	}
	return e
}

// Canceled counts the records that failed as canceled.
func (o *Outcome) Canceled() int {
	n := 0
	for i := range o.Records {
		if o.Records[i].ErrorClass == record.ErrCanceled {
			n++
		}
	}
	return n
}
