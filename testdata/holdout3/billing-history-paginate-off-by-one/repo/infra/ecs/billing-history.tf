resource "aws_ecs_service" "billing_history" {
  name            = "billing-history"
  cluster         = aws_ecs_cluster.prod.id
  task_definition = aws_ecs_task_definition.billing_history.arn
  desired_count   = 3
  launch_type     = "FARGATE"

  deployment_minimum_healthy_percent = 100
  deployment_maximum_percent         = 200

  load_balancer {
    target_group_arn = aws_lb_target_group.billing_history.arn
    container_name   = "billing-history"
    container_port   = 8000
  }

  network_configuration {
    subnets         = var.private_subnets
    security_groups = [aws_security_group.billing_history.id]
  }
}

resource "aws_ecs_task_definition" "billing_history" {
  family                   = "billing-history"
  requires_compatibilities = ["FARGATE"]
  network_mode             = "awsvpc"
  cpu                      = 512
  memory                   = 1024
  container_definitions = jsonencode([{
    name         = "billing-history"
    image        = "${var.registry}/billing-history:${var.billing_history_tag}"
    portMappings = [{ containerPort = 8000 }]
    logConfiguration = {
      logDriver = "awsfirelens"
      options   = { Name = "loki", Labels = "{container_name=\"billing-history\"}" }
    }
  }])
}
