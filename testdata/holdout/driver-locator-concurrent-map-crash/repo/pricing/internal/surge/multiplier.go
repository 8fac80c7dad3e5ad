package surge

// Cap keeps surge pricing within what the city licences allow.
const Cap = 2.5

func Multiplier(demand, supply float64) float64 {
	if supply <= 0 {
		return Cap
	}
	m := 1 + (demand-supply)/supply*0.6
	if m < 1 {
		return 1
	}
	if m > Cap {
		return Cap
	}
	return m
}
