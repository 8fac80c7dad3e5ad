use std::collections::HashMap;
use std::time::{Duration, Instant};

use tracing::{info, warn};

use crate::budget::{Budget, DeliveryMode};
use crate::spend::SpendReader;

/// Seconds of spend at the current rate below which an ASAP campaign is throttled.
const ASAP_BRAKE_SECS: f64 = 120.0;

pub struct Controller {
    budgets: HashMap<u64, Budget>,
    multipliers: HashMap<u64, f64>,
    spend: SpendReader,
}

impl Controller {
    /// Called every 5s by the refresh task: re-reads spend from Redis and
    /// recomputes the bid multiplier of every active campaign.
    pub async fn refresh(&mut self) -> anyhow::Result<()> {
        let started = Instant::now();
        let spend = self.spend.read_all().await?;
        let mut exhausted = 0usize;
        let mut throttled = 0usize;
        for (id, budget) in &self.budgets {
            let s = spend.get(id).copied().unwrap_or_default();
            let remaining = budget.remaining_micros(s.spent_micros);
            let m = multiplier(budget.mode, remaining, s.rate_micros_per_sec, s.seconds_left_today);
            if remaining == 0 {
                exhausted += 1;
            } else if m < 1.0 {
                throttled += 1;
            }
            let prev = self.multipliers.insert(*id, m).unwrap_or(1.0);
            if (prev - m).abs() >= 0.2 || (m == 0.0 && prev > 0.0) {
                info!(campaign_id = id, remaining_micros = remaining, spent_micros = s.spent_micros,
                      previous = prev, multiplier = m, "pacing multiplier changed");
            }
        }
        if started.elapsed() > Duration::from_millis(500) {
            warn!(elapsed_ms = started.elapsed().as_millis() as u64, "slow pacing refresh");
        }
        crate::metrics::record_refresh(self.budgets.len(), exhausted, throttled, started.elapsed());
        Ok(())
    }
}

fn multiplier(mode: DeliveryMode, remaining: u64, rate: f64, seconds_left: f64) -> f64 {
    if remaining == 0 {
        return 0.0;
    }
    let remaining = remaining as f64;
    match mode {
        DeliveryMode::Asap => {
            if rate <= 0.0 {
                return 1.0;
            }
            (remaining / (rate * ASAP_BRAKE_SECS)).clamp(0.0, 1.0)
        }
        DeliveryMode::Even => {
            let target = remaining / seconds_left.max(60.0);
            if rate <= 0.0 { 1.0 } else { (target / rate).clamp(0.0, 1.0) }
        }
    }
}
