resource "aws_db_instance" "fieldops_prod" {
  identifier                 = "fieldops-prod"
  engine                     = "postgres"
  engine_version             = "15.8"
  instance_class             = "db.r6g.large"
  allocated_storage          = 200
  storage_type               = "gp3"
  db_subnet_group_name       = aws_db_subnet_group.private.name
  vpc_security_group_ids     = [aws_security_group.fieldops_db.id]
  parameter_group_name       = aws_db_parameter_group.pg15_shared.name
  multi_az                   = true
  backup_retention_period    = 14
  maintenance_window         = "tue:04:00-tue:04:30"
  apply_immediately          = false
  deletion_protection        = true
  performance_insights_enabled = true

  tags = local.tags
}
