use axum::{extract::{Query, State}, Json};
use tracing::instrument;

use crate::{es::EsClient, model::{SearchParams, SearchResponse}, AppError};

#[instrument(skip(es))]
pub async fn search(State(es): State<EsClient>, Query(p): Query<SearchParams>) -> Result<Json<SearchResponse>, AppError> {
    let query = crate::query::build(&p)?;
    let hits = es.search("products", &query).await?;
    let ranked = crate::rank::rerank(hits, &p);   // CPU-heavy: ~8ms per request
    Ok(Json(SearchResponse::from(ranked, p.page)))
}
