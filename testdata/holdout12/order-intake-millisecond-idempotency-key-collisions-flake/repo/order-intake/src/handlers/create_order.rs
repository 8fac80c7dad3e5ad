use axum::{extract::State, http::StatusCode, Json};
use chrono::Utc;
use sqlx::PgPool;
use tracing::{info, instrument};

use crate::error::ApiError;
use crate::model::{NewOrder, OrderCreated};

#[instrument(skip(pool, body), fields(partner_id = %body.partner_id, lines = body.lines.len()))]
pub async fn create_order(
    State(pool): State<PgPool>,
    Json(body): Json<NewOrder>,
) -> Result<(StatusCode, Json<OrderCreated>), ApiError> {
    body.validate()?;
    // Key used by the warehouse to de-duplicate retried submissions.
    let idempotency_key = format!("{}-{}", body.partner_id, Utc::now().timestamp_millis());

    let mut tx = pool.begin().await?;
    let order_id: i64 = sqlx::query_scalar(
        "INSERT INTO orders (partner_id, partner_ref, idempotency_key, ship_to, status) \
         VALUES ($1, $2, $3, $4, 'received') RETURNING id",
    )
    .bind(&body.partner_id)
    .bind(&body.partner_ref)
    .bind(&idempotency_key)
    .bind(sqlx::types::Json(&body.ship_to))
    .fetch_one(&mut *tx)
    .await?;

    for line in &body.lines {
        sqlx::query("INSERT INTO order_lines (order_id, sku, qty) VALUES ($1, $2, $3)")
            .bind(order_id)
            .bind(&line.sku)
            .bind(line.qty)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    info!(order_id, %idempotency_key, "order received");
    Ok((StatusCode::CREATED, Json(OrderCreated { order_id })))
}
