use serde::{Deserialize, Serialize};
use uuid::Uuid;

pub type PartyId = Uuid;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Member {
    pub player_id: Uuid,
    pub mmr: u32,
    pub region: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Party {
    pub id: PartyId,
    pub playlist: String,
    pub members: Vec<Member>,
}

impl Party {
    /// Mean rating of the members, raised 5% per member beyond the first:
    /// premade parties coordinate better than solo players of equal rating.
    pub fn effective_mmr(&self) -> u32 {
        let n = self.members.len().max(1) as u32;
        let mean = self.members.iter().map(|m| m.mmr).sum::<u32>() / n;
        mean + mean * 5 * (n - 1) / 100
    }
}

#[cfg(test)]
pub mod tests {
    use super::*;

    pub fn party_with_mmr(mmrs: &[u32]) -> Party {
        Party {
            id: Uuid::new_v4(),
            playlist: "ranked-duo".into(),
            members: mmrs.iter().map(|&mmr| Member { player_id: Uuid::new_v4(), mmr, region: "eu-west".into() }).collect(),
        }
    }

    #[test]
    fn premade_bonus() {
        assert_eq!(party_with_mmr(&[2000, 2000]).effective_mmr(), 2100);
    }
}
