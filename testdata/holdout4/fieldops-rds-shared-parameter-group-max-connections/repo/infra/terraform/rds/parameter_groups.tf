# Shared parameter groups for the small Postgres 15 instances (PLAT-377).
resource "aws_db_parameter_group" "pg15_shared" {
  name   = "pg15-shared"
  family = "postgres15"

  parameter {
    name         = "max_connections"
    value        = "100"
    apply_method = "pending-reboot"
  }
  parameter {
    name  = "log_min_duration_statement"
    value = "1000"
  }
  parameter {
    name  = "idle_in_transaction_session_timeout"
    value = "60000"
  }

  tags = local.tags
}
