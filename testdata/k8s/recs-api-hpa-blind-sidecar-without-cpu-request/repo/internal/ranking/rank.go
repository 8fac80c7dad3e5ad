package ranking

import (
	"sort"
	"time"
)

// newReleaseBoost favours titles released in the last 14 days in the
// "Because you watched" rail, fading linearly to zero.
const newReleaseWindow = 14 * 24 * time.Hour

func Rank(cands []Candidate, now time.Time) []Candidate {
	for i := range cands {
		age := now.Sub(cands[i].ReleasedAt)
		if age >= 0 && age < newReleaseWindow {
			cands[i].Score *= 1 + 0.25*(1-float64(age)/float64(newReleaseWindow))
		}
	}
	sort.SliceStable(cands, func(a, b int) bool { return cands[a].Score > cands[b].Score })
	return cands
}
