/// Applies the publisher's floor to our bid price (CPM, in micros).
///
/// Exchanges send floors as floats ("0.35000000000000003"); round to 4 decimals
/// so a bid exactly at the floor is not dropped.
pub fn apply_floor(bid_cpm_micros: u64, floor_cpm: f64) -> Option<u64> {
    let floor = ((floor_cpm * 10_000.0).round() * 100.0) as u64;
    if bid_cpm_micros < floor {
        return None;
    }
    Some(bid_cpm_micros)
}
