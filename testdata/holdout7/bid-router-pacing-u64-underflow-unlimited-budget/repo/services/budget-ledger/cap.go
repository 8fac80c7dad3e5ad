package main

// budget-ledger consumes win notices (topic dsp.wins.v3), adds the clearing price
// to spend:{yyyymmdd} in Redis and flags campaigns whose spend passes the cap.
// It does not stop bidding itself: bid-router's pacer owns that.

func (l *Ledger) checkCap(c Campaign, spent int64) {
	if spent <= c.DailyCapMicros {
		return
	}
	over := spent - c.DailyCapMicros
	if over > c.DailyCapMicros/100 {
		l.log.Error().Int64("campaign_id", c.ID).Str("advertiser", c.Advertiser).
			Float64("spent", float64(spent)/1e6).Float64("cap", float64(c.DailyCapMicros)/1e6).
			Msg("overspend: campaign is past its daily cap by more than 1%")
		return
	}
	l.log.Warn().Int64("campaign_id", c.ID).Int64("over_micros", over).Msg("campaign over daily cap")
}
