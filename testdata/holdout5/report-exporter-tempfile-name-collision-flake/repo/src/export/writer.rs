use std::path::PathBuf;

use anyhow::Context;
use chrono::Utc;
use tokio::fs::File;
use tokio::io::{AsyncWriteExt, BufWriter};

use crate::export::ExportJob;

pub struct SpooledExport {
    pub path: PathBuf,
    pub rows: u64,
    pub bytes: u64,
}

/// Streams the rows of an export into a local spool file so large tenants do not have to fit in memory.
pub async fn spool(job: &ExportJob, mut rows: crate::db::RowStream) -> anyhow::Result<SpooledExport> {
    let path = std::env::temp_dir().join(format!("export-{}-{}.csv", job.tenant_id, Utc::now().timestamp()));
    let file = File::create(&path).await.with_context(|| format!("create {}", path.display()))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    out.write_all(job.header().as_bytes()).await?;
    let (mut n, mut bytes) = (0u64, 0u64);
    while let Some(row) = rows.next_csv_line().await? {
        bytes += row.len() as u64;
        out.write_all(row.as_bytes()).await?;
        n += 1;
    }
    out.flush().await?;
    Ok(SpooledExport { path, rows: n, bytes })
}
