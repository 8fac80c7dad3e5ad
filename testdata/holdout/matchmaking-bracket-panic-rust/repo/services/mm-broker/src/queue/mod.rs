pub mod brackets;

use std::sync::Arc;

use tokio::sync::Mutex;

use crate::party::{Party, PartyId};
use brackets::Brackets;

#[derive(Clone)]
pub struct QueueHandle {
    inner: Arc<Mutex<Brackets>>,
}

impl QueueHandle {
    pub fn new(b: Brackets) -> Self {
        QueueHandle { inner: Arc::new(Mutex::new(b)) }
    }

    pub async fn enqueue(&self, party: Party) -> usize {
        let mut b = self.inner.lock().await;
        b.insert(party)
    }

    pub async fn leave(&self, id: PartyId) -> bool {
        self.inner.lock().await.remove(id).is_some()
    }

    pub async fn estimate(&self, bracket: usize) -> u32 {
        let b = self.inner.lock().await;
        let waiting = b.bracket(bracket).len() as u32;
        20 + waiting.saturating_sub(8) * 3
    }
}
