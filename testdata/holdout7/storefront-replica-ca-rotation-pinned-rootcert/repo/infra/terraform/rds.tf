resource "aws_db_instance" "storefront" {
  identifier                 = "storefront-primary"
  engine                     = "postgres"
  engine_version             = "16.4"
  instance_class             = "db.r7g.2xlarge"
  allocated_storage          = 800
  storage_type               = "gp3"
  multi_az                   = true
  db_subnet_group_name       = aws_db_subnet_group.commerce.name
  vpc_security_group_ids     = [aws_security_group.storefront_db.id]
  parameter_group_name       = aws_db_parameter_group.storefront_pg16.name
  backup_retention_period    = 14
  maintenance_window         = "wed:02:00-wed:02:30"
  ca_cert_identifier         = "rds-ca-rsa2048-g1"
  auto_minor_version_upgrade = false
  deletion_protection        = true
}

resource "aws_db_instance" "storefront_replica" {
  identifier                 = "storefront-replica-1"
  replicate_source_db        = aws_db_instance.storefront.identifier
  instance_class             = "db.r7g.2xlarge"
  storage_type               = "gp3"
  vpc_security_group_ids     = [aws_security_group.storefront_db.id]
  parameter_group_name       = aws_db_parameter_group.storefront_pg16.name
  maintenance_window         = "wed:02:00-wed:02:30"
  # SEC-412: ECC CA for all RDS endpoints by end of quarter. Replica first,
  # primary in next week's window.
  ca_cert_identifier         = "rds-ca-ecc384-g1"
  apply_immediately          = false
  auto_minor_version_upgrade = false
}
