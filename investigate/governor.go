package investigate

import (
	"fmt"
	"sort"
	"strings"
)

// Receipts-derived facts the governor grants a band from. Nothing in here
// is asserted by a planner: each field is computed from tool receipts.
type GovernorInput struct {
	ErrorTypeKnown bool
	// FileAnchored: the root cause has a repository file:line that exists.
	FileAnchored bool
	// SourceRead: a successful source receipt covers that line.
	SourceRead bool
	// Reproduced: a reproduction receipt confirmed the failure.
	Reproduced bool
	// Corroborating lists the independent families whose findings support
	// the root cause (same service and error type).
	Corroborating []Family
	// Contested names a competing explanation that the evidence does not
	// rule out (empty when the leader is clear).
	Contested string
	// Failures is how many failing requests/lines/events the root cause
	// accounts for; a handful cannot rule out a one-off.
	Failures int
	// HeuristicLine: the line was chosen by the kind of setting (a changed
	// config line, a manifest field), not named by the evidence itself.
	HeuristicLine bool
	// Warnings are the reasons of OK receipts whose answers cannot be
	// trusted (ReceiptWarnings): they do not change the band, but the note
	// names them, since what they did not find may exist.
	Warnings []string
}

// ReceiptWarnings lists "family: reason" for every receipt with a warning,
// once each.
func ReceiptWarnings(receipts []Receipt) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range receipts {
		if r.Status() != StatusWarning {
			continue
		}
		w := string(r.Family) + ": " + r.Warning
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// WarningNote is the sentence a confidence note ends with when receipts
// carry warnings ("" when none).
func WarningNote(warnings []string) string {
	if len(warnings) == 0 {
		return ""
	}
	return " Not trustworthy: " + strings.Join(warnings, "; ") + "."
}

// minFailuresForHigh: below this, one odd request could explain everything.
const minFailuresForHigh = 3

// Governor bands. DESIGN.md:
//   - HIGH: error type known, file anchored, source read, and either a
//     reproduction or corroboration by two independent families;
//   - MEDIUM: error type known and either two families corroborate or the
//     source is anchored;
//   - LOW: everything else.
//
// In addition, a contested root cause is never HIGH: a wrong HIGH is the
// worst outcome this product can have.
func Govern(claimed Band, in GovernorInput) (Band, string) {
	earned := BandLow
	var missingHigh, missingMedium []string
	twoFamilies := len(in.Corroborating) >= 2
	if !in.ErrorTypeKnown {
		missingMedium = append(missingMedium, "an error type recognised in the evidence")
		missingHigh = append(missingHigh, "an error type recognised in the evidence")
	}
	if !twoFamilies && !in.FileAnchored {
		missingMedium = append(missingMedium, "a second independent source of evidence (e.g. logs as well as traces) or a stack frame anchored in the repository")
	}
	if in.ErrorTypeKnown && (twoFamilies || in.FileAnchored) {
		earned = BandMedium
	}
	if !in.FileAnchored {
		missingHigh = append(missingHigh, "a file:line in the repository the evidence points at")
	}
	if in.FileAnchored && !in.SourceRead {
		missingHigh = append(missingHigh, "reading the source at that line")
	}
	if !in.Reproduced && !twoFamilies {
		missingHigh = append(missingHigh, "corroboration by two independent families (e.g. traces and logs) or a reproduction")
	}
	if in.ErrorTypeKnown && in.FileAnchored && in.SourceRead && (in.Reproduced || twoFamilies) {
		earned = BandHigh
	}
	if earned == BandHigh && in.Contested != "" {
		earned = BandMedium
		missingHigh = append(missingHigh, "evidence ruling out "+in.Contested)
	}
	if earned == BandHigh && in.Failures > 0 && in.Failures < minFailuresForHigh {
		earned = BandMedium
		missingHigh = append(missingHigh, fmt.Sprintf("more than %d observed failures (a one-off is not ruled out)", in.Failures))
	}
	if earned == BandHigh && in.HeuristicLine {
		earned = BandMedium
		missingHigh = append(missingHigh, "evidence naming the exact setting (the line was chosen by the kind of failure)")
	}
	granted := claimed
	if claimed.Rank() > earned.Rank() {
		granted = earned
	}
	fams := familyNames(in.Corroborating)
	var note string
	switch granted {
	case BandHigh:
		note = fmt.Sprintf("HIGH: error type known, file anchored and read, corroborated by %s.", fams)
	case BandMedium:
		note = "MEDIUM"
		if len(in.Corroborating) > 0 {
			note += " (corroborated by " + fams + ")"
		}
		if len(missingHigh) > 0 {
			note += ". HIGH would need " + strings.Join(missingHigh, "; ") + "."
		} else if claimed.Rank() < BandHigh.Rank() {
			note += ": the evidence would allow HIGH, but the planner claimed less."
		}
	default:
		note = "LOW"
		if len(missingMedium) > 0 {
			note += ". MEDIUM would need " + strings.Join(missingMedium, "; ") + "."
		}
		if len(missingHigh) > 0 {
			note += " HIGH would need " + strings.Join(missingHigh, "; ") + "."
		}
	}
	if claimed.Rank() > granted.Rank() {
		note += fmt.Sprintf(" (claimed %s, clamped to %s by the evidence.)", claimed, granted)
	}
	note += WarningNote(in.Warnings)
	return granted, note
}

func familyNames(fs []Family) string {
	if len(fs) == 0 {
		return "no family"
	}
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = string(f)
	}
	sort.Strings(names)
	return strings.Join(names, " and ")
}

// ClaimFromRaw maps a raw confidence in [0,1] to the band a planner claims.
func ClaimFromRaw(raw float64) Band {
	switch {
	case raw >= 0.8:
		return BandHigh
	case raw >= 0.5:
		return BandMedium
	}
	return BandLow
}
