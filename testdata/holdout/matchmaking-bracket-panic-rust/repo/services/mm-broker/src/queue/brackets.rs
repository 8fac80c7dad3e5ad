//! Skill brackets: parties wait in the bracket of their (party-averaged)
//! matchmaking rating and widen to neighbouring brackets as they wait.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::config::BracketConfig;
use crate::party::{Party, PartyId};

/// Width of one bracket in MMR points.
pub const BRACKET_WIDTH: u32 = 100;

#[derive(Debug)]
pub struct Waiting {
    pub party: Party,
    pub since: Instant,
}

#[derive(Debug)]
pub struct Brackets {
    brackets: Vec<VecDeque<Waiting>>,
    widen_every: Duration,
    max_widen: usize,
}

impl Brackets {
    pub fn new(cfg: &BracketConfig) -> Self {
        let count = (cfg.max_mmr / BRACKET_WIDTH) as usize;
        Brackets {
            brackets: (0..count).map(|_| VecDeque::new()).collect(),
            widen_every: cfg.widen_every,
            max_widen: cfg.max_widen,
        }
    }

    pub fn len(&self) -> usize {
        self.brackets.iter().map(VecDeque::len).sum()
    }

    /// Index of the bracket a rating falls into.
    fn bracket_of(&self, mmr: u32) -> usize {
        (mmr / BRACKET_WIDTH) as usize
    }

    /// Queues a party in its home bracket; the party's rating is the mean of
    /// its members', weighted up by 5% per extra member (premades win more).
    pub fn insert(&mut self, party: Party) -> usize {
        let rating = party.effective_mmr();
        let idx = self.bracket_of(rating);
        self.brackets[idx].push_back(Waiting { party, since: Instant::now() });
        idx
    }

    pub fn remove(&mut self, id: PartyId) -> Option<Party> {
        for b in self.brackets.iter_mut() {
            if let Some(pos) = b.iter().position(|w| w.party.id == id) {
                return b.remove(pos).map(|w| w.party);
            }
        }
        None
    }

    /// Brackets a waiting party may be matched from, widening with time.
    pub fn search_window(&self, home: usize, waited: Duration) -> std::ops::RangeInclusive<usize> {
        let steps = (waited.as_secs() / self.widen_every.as_secs().max(1)) as usize;
        let w = steps.min(self.max_widen);
        home.saturating_sub(w)..=(home + w).min(self.brackets.len() - 1)
    }

    pub fn bracket(&self, idx: usize) -> &VecDeque<Waiting> {
        &self.brackets[idx]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::party::tests::party_with_mmr;

    fn cfg() -> BracketConfig {
        BracketConfig { max_mmr: 4000, widen_every: Duration::from_secs(15), max_widen: 6 }
    }

    #[test]
    fn inserts_in_home_bracket() {
        let mut b = Brackets::new(&cfg());
        assert_eq!(b.insert(party_with_mmr(&[1450])), 14);
        assert_eq!(b.insert(party_with_mmr(&[0])), 0);
        assert_eq!(b.insert(party_with_mmr(&[3999])), 39);
    }

    #[test]
    fn window_widens_and_clamps() {
        let b = Brackets::new(&cfg());
        assert_eq!(b.search_window(38, Duration::from_secs(60)), 34..=39);
    }
}
