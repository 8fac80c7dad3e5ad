resource "aws_sqs_queue" "invoice_mail_dlq" {
  name                      = "invoice-mail-dlq"
  message_retention_seconds = 1209600
}

resource "aws_sqs_queue" "invoice_mail" {
  name                       = "invoice-mail"
  visibility_timeout_seconds = 30
  message_retention_seconds  = 345600
  receive_wait_time_seconds  = 20
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.invoice_mail_dlq.arn
    maxReceiveCount     = 5
  })
}

resource "aws_sqs_queue" "webhook_out" {
  name                       = "webhook-out"
  visibility_timeout_seconds = 120
}
