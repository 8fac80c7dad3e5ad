use std::time::Duration;

use rdkafka::consumer::{CommitMode, Consumer, StreamConsumer};
use rdkafka::message::{BorrowedMessage, Message};
use tracing::{error, info, instrument, warn};

use crate::model::Movement;
use crate::store::StockStore;

/// Movements of one SKU must be applied in order, so a partition never skips
/// a message: on any failure the same offset is retried until it succeeds.
const RETRY_DELAY: Duration = Duration::from_secs(5);

pub struct PartitionLoop {
    pub consumer: StreamConsumer,
    pub store: StockStore,
}

impl PartitionLoop {
    pub async fn run(&self) -> anyhow::Result<()> {
        loop {
            let msg = self.consumer.recv().await?;
            while let Err(err) = self.apply(&msg).await {
                error!(
                    partition = msg.partition(),
                    offset = msg.offset(),
                    error = %err,
                    retry_in_ms = RETRY_DELAY.as_millis() as u64,
                    "failed to apply movement, will retry"
                );
                tokio::time::sleep(RETRY_DELAY).await;
            }
            self.consumer.commit_message(&msg, CommitMode::Async)?;
        }
    }

    #[instrument(name = "inventory.movements process", skip_all,
                 fields(messaging.system = "kafka", messaging.destination.name = "inventory.movements",
                        messaging.kafka.destination.partition = msg.partition(),
                        messaging.kafka.message.offset = msg.offset()))]
    async fn apply(&self, msg: &BorrowedMessage<'_>) -> anyhow::Result<()> {
        let payload = msg.payload().unwrap_or_default();
        let movement: Movement = serde_json::from_slice(payload)?;
        if movement.quantity == 0 {
            warn!(movement_id = %movement.movement_id, "zero-quantity movement ignored");
            return Ok(());
        }
        self.store.apply(&movement).await?;
        info!(sku = %movement.sku, location = %movement.location, delta = movement.quantity, "stock updated");
        Ok(())
    }
}
