locals {
  oidc_provider = replace(data.aws_eks_cluster.prod.identity[0].oidc[0].issuer, "https://", "")
  namespace     = "listings"
}

data "aws_iam_openid_connect_provider" "prod" {
  url = data.aws_eks_cluster.prod.identity[0].oidc[0].issuer
}

# --- listings-api: pre-signed upload URLs -------------------------------------

data "aws_iam_policy_document" "listings_api_trust" {
  statement {
    actions = ["sts:AssumeRoleWithWebIdentity"]
    principals {
      type        = "Federated"
      identifiers = [data.aws_iam_openid_connect_provider.prod.arn]
    }
    condition {
      test     = "StringEquals"
      variable = "${local.oidc_provider}:sub"
      values   = ["system:serviceaccount:${local.namespace}:listings-api"]
    }
    condition {
      test     = "StringEquals"
      variable = "${local.oidc_provider}:aud"
      values   = ["sts.amazonaws.com"]
    }
  }
}

resource "aws_iam_role" "listings_api" {
  name               = "listings-api"
  assume_role_policy = data.aws_iam_policy_document.listings_api_trust.json
  tags               = local.tags
}

resource "aws_iam_role_policy_attachment" "listings_api_uploads" {
  role       = aws_iam_role.listings_api.name
  policy_arn = aws_iam_policy.photo_uploads_put.arn
}

# --- listing-photos-worker: reads originals, writes variants --------------------

data "aws_iam_policy_document" "photo_worker_trust" {
  statement {
    actions = ["sts:AssumeRoleWithWebIdentity"]
    principals {
      type        = "Federated"
      identifiers = [data.aws_iam_openid_connect_provider.prod.arn]
    }
    condition {
      test     = "StringEquals"
      variable = "${local.oidc_provider}:sub"
      values   = ["system:serviceaccount:${local.namespace}:listings-photo-worker"]
    }
    condition {
      test     = "StringEquals"
      variable = "${local.oidc_provider}:aud"
      values   = ["sts.amazonaws.com"]
    }
  }
}

resource "aws_iam_role" "photo_worker" {
  name                 = "listings-photo-worker"
  assume_role_policy   = data.aws_iam_policy_document.photo_worker_trust.json
  max_session_duration = 3600
  tags                 = local.tags
}

resource "aws_iam_role_policy_attachment" "photo_worker_s3" {
  role       = aws_iam_role.photo_worker.name
  policy_arn = aws_iam_policy.photo_variants_rw.arn
}
