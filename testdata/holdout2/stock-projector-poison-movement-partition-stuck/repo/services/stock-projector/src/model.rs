use chrono::{DateTime, Utc};
use serde::Deserialize;

/// One stock movement as published on `inventory.movements` (JSON, schema
/// `schemas/inventory/movement.v2.json`). `quantity` is signed: receipts and
/// count corrections upwards are positive, picks and write-offs negative.
#[derive(Debug, Clone, Deserialize)]
pub struct Movement {
    pub movement_id: String,
    pub sku: String,
    pub location: String,
    pub kind: MovementKind,
    pub quantity: i32,
    pub occurred_at: DateTime<Utc>,
    #[serde(default)]
    pub source: Option<String>,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum MovementKind {
    Receipt,
    Pick,
    Transfer,
    WriteOff,
    CountAdjustment,
}
