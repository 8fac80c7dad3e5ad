use anyhow::Context;
use aws_sdk_s3::primitives::ByteStream;

use crate::export::{writer::SpooledExport, ExportJob};

pub async fn upload(s3: &aws_sdk_s3::Client, bucket: &str, job: &ExportJob, spooled: &SpooledExport) -> anyhow::Result<String> {
    let key = format!("exports/{}/{}/{}.csv", job.tenant_id, job.report_id, job.id);
    let body = ByteStream::from_path(&spooled.path)
        .await
        .with_context(|| format!("failed to open {}", spooled.path.display()))?;
    s3.put_object().bucket(bucket).key(&key).body(body).send().await.context("put_object")?;
    tokio::fs::remove_file(&spooled.path)
        .await
        .with_context(|| format!("failed to remove {}", spooled.path.display()))?;
    Ok(key)
}
