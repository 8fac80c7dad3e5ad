# Task role of subtitle-service (ECS service media/subtitle-service).
resource "aws_iam_role" "subtitle_service_task" {
  name               = "subtitle-service-task"
  assume_role_policy = data.aws_iam_policy_document.ecs_tasks_assume.json
  tags               = local.tags
}

data "aws_iam_policy_document" "subtitle_service" {
  statement {
    sid       = "ReadSubtitles"
    actions   = ["s3:GetObject", "s3:ListBucket"]
    resources = [aws_s3_bucket.subtitles.arn, "${aws_s3_bucket.subtitles.arn}/*"]
  }

  statement {
    sid       = "DecryptSubtitles"
    actions   = ["kms:Decrypt"]
    resources = [aws_kms_key.media_2023.arn]
  }

  statement {
    sid       = "ReadTrackCatalog"
    actions   = ["dynamodb:GetItem", "dynamodb:Query"]
    resources = [aws_dynamodb_table.subtitle_tracks.arn, "${aws_dynamodb_table.subtitle_tracks.arn}/index/*"]
  }
}

resource "aws_iam_role_policy" "subtitle_service" {
  name   = "subtitle-service"
  role   = aws_iam_role.subtitle_service_task.id
  policy = data.aws_iam_policy_document.subtitle_service.json
}
