package investigate

import (
	"time"
)

// Which way failures flow, and who changed. A service that rejects or
// mishandles what its callers send shows the failure; when it has not
// changed for long while the caller that sends those requests changed just
// before the onset, the caller's change is what altered the requests: the
// caller is the origin and the callee the victim.

// callerChangeWindow: a caller's change this close before the onset is
// "just before" it.
const callerChangeWindow = quietAfterChange

// callerOriginChange returns the line of the dominant caller's recent
// code change that the failures of callee c follow, and that caller.
// It holds only when c's failures are seen at the call boundary (callers'
// requests to c failed, none originating in c), the caller changed its
// code within callerChangeWindow before the onset, and every change of c
// landed long before (it kept serving without failing since). The line is
// a construct wrong wherever it is written when the change adds one, else
// the changed line sharing most with the failure (a judgement call: heur
// is then true).
func (ev *evidence) callerOriginChange(c *candidate) (l changeLine, caller string, heur bool, ok bool) {
	if c.traceCallee == 0 || c.traceOrigins > 0 || c.exceptions > 0 {
		return changeLine{}, "", false, false
	}
	caller = dominantCaller(c)
	if caller == "" || NormalizeServiceName(caller) == NormalizeServiceName(c.Service) {
		return changeLine{}, "", false, false
	}
	ref := ev.onset
	if ref.IsZero() {
		ref = c.First
	}
	if ref.IsZero() {
		return changeLine{}, "", false, false
	}
	code := func(f Finding) bool { return f.Kind == KindChangeCorrelation && f.File != "" && !IsConfigPath(f.File) }
	var latestCaller Finding
	for _, f := range ev.findings {
		if !code(f) || f.Time.After(ref.Add(5*time.Minute)) {
			continue
		}
		switch {
		case ev.relatedTo(f, c.Service) && !ev.relatedTo(f, caller):
			if ref.Sub(f.Time) < callerChangeWindow {
				return changeLine{}, "", false, false // the callee changed too: no telling
			}
		case ev.relatedTo(f, caller) && !ev.relatedTo(f, c.Service):
			if ref.Sub(f.Time) <= callerChangeWindow && f.Time.After(latestCaller.Time) {
				latestCaller = f
			}
		}
	}
	if latestCaller.File == "" {
		return changeLine{}, "", false, false
	}
	probe := &candidate{Service: caller, ErrorType: c.ErrorType, Support: c.Support}
	if hl, _, found := ev.hazardChange(probe, ""); found && ev.relatedTo(hl.change, caller) {
		return hl, caller, false, true
	}
	return bestChangedLine(latestCaller, failureWords(ev, c)), caller, true, true
}

// requestShaped: error types a request's content can cause in the service
// that receives it (not exhaustion, deadlines or the network).
func requestShaped(et ErrorType) bool {
	switch et {
	case ErrRuntime, ErrDataValidation, ErrNullPointer, ErrUnknown, "":
		return true
	}
	return false
}
