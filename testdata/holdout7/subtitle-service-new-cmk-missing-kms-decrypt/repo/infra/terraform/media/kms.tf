resource "aws_kms_key" "media_2023" {
  description             = "media content at rest (subtitles, artwork, sidecars)"
  enable_key_rotation     = true
  deletion_window_in_days = 30
  multi_region            = true
  tags                    = local.tags
}

resource "aws_kms_alias" "media_2023" {
  name          = "alias/media-content-2023"
  target_key_id = aws_kms_key.media_2023.key_id
}

# SEC-77: new multi-Region CMK with the DR replica in eu-central-1. The 2023 key
# stays enabled: existing objects keep it until the re-encryption batch runs.
resource "aws_kms_key" "media_2026" {
  description             = "media content at rest, 2026 (multi-Region, DR replica eu-central-1)"
  enable_key_rotation     = true
  deletion_window_in_days = 30
  multi_region            = true
  tags                    = local.tags
}

resource "aws_kms_alias" "media_2026" {
  name          = "alias/media-content-2026"
  target_key_id = aws_kms_key.media_2026.key_id
}
