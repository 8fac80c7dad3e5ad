//! Budget arithmetic for the pacer. All money is in micros of the campaign currency.

/// Daily budget of one campaign as the pacer sees it.
#[derive(Debug, Clone)]
pub struct Budget {
    pub campaign_id: u64,
    pub daily_cap_micros: u64,
    pub mode: DeliveryMode,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryMode {
    /// Spread spend over the remaining hours of the day.
    Even,
    /// Spend as fast as the market allows until the cap is reached.
    Asap,
}

impl Budget {
    /// What is left to spend today (micros are never negative, so u64 end to end).
    pub fn remaining_micros(&self, spent_micros: u64) -> u64 {
        self.daily_cap_micros - spent_micros
    }
}
