use sqlx::PgPool;

use crate::model::Movement;

pub struct StockStore {
    pool: PgPool,
}

/// Statement timeout for one UPSERT; autovacuum on stock_levels can stall
/// writes for a few hundred milliseconds.
const WRITE_TIMEOUT_MS: i64 = 2_000;

impl StockStore {
    pub async fn apply(&self, m: &Movement) -> sqlx::Result<()> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(&format!("SET LOCAL statement_timeout = {WRITE_TIMEOUT_MS}"))
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "INSERT INTO stock_levels (sku, location, on_hand, updated_at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (sku, location) DO UPDATE SET on_hand = stock_levels.on_hand + EXCLUDED.on_hand, \
             updated_at = GREATEST(stock_levels.updated_at, EXCLUDED.updated_at)",
        )
        .bind(&m.sku)
        .bind(&m.location)
        .bind(m.quantity)
        .bind(m.occurred_at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await
    }
}
