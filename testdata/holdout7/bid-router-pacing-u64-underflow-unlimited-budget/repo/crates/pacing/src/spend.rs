use std::collections::HashMap;

use redis::AsyncCommands;

#[derive(Debug, Clone, Copy, Default)]
pub struct Spend {
    pub spent_micros: u64,
    pub rate_micros_per_sec: f64,
    pub seconds_left_today: f64,
}

/// Reads today's spend per campaign from the hash budget-ledger maintains
/// (`spend:{yyyymmdd}` -> campaign_id -> micros).
pub struct SpendReader {
    conn: redis::aio::ConnectionManager,
    last: HashMap<u64, (u64, std::time::Instant)>,
}

impl SpendReader {
    pub async fn read_all(&mut self) -> anyhow::Result<HashMap<u64, Spend>> {
        let key = format!("spend:{}", chrono::Utc::now().format("%Y%m%d"));
        let raw: HashMap<u64, u64> = self.conn.hgetall(&key).await?;
        let now = std::time::Instant::now();
        let secs_left = crate::clock::seconds_left_today();
        let mut out = HashMap::with_capacity(raw.len());
        for (id, spent) in raw {
            let rate = match self.last.get(&id) {
                Some((prev, at)) if now > *at => spent.saturating_sub(*prev) as f64 / (now - *at).as_secs_f64(),
                _ => 0.0,
            };
            self.last.insert(id, (spent, now));
            out.insert(id, Spend { spent_micros: spent, rate_micros_per_sec: rate, seconds_left_today: secs_left });
        }
        Ok(out)
    }
}
