resource "azurerm_kubernetes_cluster_node_pool" "apps" {
  name                  = "apps"
  kubernetes_cluster_id = azurerm_kubernetes_cluster.prod.id
  vm_size               = "Standard_D8s_v5"
  orchestrator_version  = "1.31.2"
  auto_scaling_enabled  = true
  min_count             = 4
  max_count             = 9
  zones                 = ["1", "2", "3"]

  upgrade_settings {
    max_surge                     = "1"
    drain_timeout_in_minutes      = 30
    node_soak_duration_in_minutes = 2
  }

  node_labels = {
    agentpool = "apps"
  }
}
