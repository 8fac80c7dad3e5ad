data "aws_iam_policy_document" "media_ingest" {
  statement {
    sid       = "WriteSubtitles"
    actions   = ["s3:PutObject", "s3:AbortMultipartUpload"]
    resources = ["${aws_s3_bucket.subtitles.arn}/*"]
  }

  statement {
    sid       = "EncryptWithMediaKey"
    actions   = ["kms:GenerateDataKey", "kms:Decrypt"]
    resources = [aws_kms_key.media_2023.arn, aws_kms_key.media_2026.arn]
  }
}

resource "aws_iam_role_policy" "media_ingest" {
  name   = "media-ingest"
  role   = aws_iam_role.media_ingest_task.id
  policy = data.aws_iam_policy_document.media_ingest.json
}
