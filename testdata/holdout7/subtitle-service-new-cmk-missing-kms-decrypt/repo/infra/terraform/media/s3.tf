resource "aws_s3_bucket" "subtitles" {
  bucket = "northreel-media-subtitles-prod"
  tags   = local.tags
}

resource "aws_s3_bucket_server_side_encryption_configuration" "subtitles" {
  bucket = aws_s3_bucket.subtitles.id

  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm     = "aws:kms"
      kms_master_key_id = aws_kms_key.media_2026.arn
    }
    bucket_key_enabled = true
  }
}

resource "aws_s3_bucket_public_access_block" "subtitles" {
  bucket                  = aws_s3_bucket.subtitles.id
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}
