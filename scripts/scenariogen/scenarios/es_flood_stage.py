"""Job board search: the Elasticsearch data nodes cross the flood-stage disk watermark; indices become read-only and the indexer fails."""
import datetime as dt

from sg import *

NAME = "jobs-search-es-flood-stage-read-only"


def build():
    sc = Scenario(NAME, "2026-12-16T08:40:00Z", """
        The jobs-es Elasticsearch cluster (ECK, 3 data nodes with 200Gi volumes) filled up overnight: the ILM policy
        that should roll over and delete the job-views-* click indices has been failing since its rollover alias was
        renamed, so daily indices accumulated until the data nodes crossed the 95% flood-stage watermark at 06:52.
        Elasticsearch then put index.blocks.read_only_allow_delete on every index with a shard on those nodes, so
        job-indexer's bulk writes fail with cluster_block_exception (TOO_MANY_REQUESTS/12/disk usage exceeded
        flood-stage watermark) and new or edited job ads stop appearing in search; searches still work. Root
        cause is storage on the datastore (free space: delete old job-views indices, fix ILM, grow the volumes,
        then clear the block), not job-indexer. The job-indexer deploy at 07:30 and the search-api GC warnings are
        unrelated. No repository is relevant to the fix.""")
    ns = "search"
    idx = sc.svc("job-indexer", ns, "java", version="3.3.0", runtime="21.0.5+11-LTS", npods=2)
    api = sc.svc("search-api", ns, "go", npods=2)
    flood = sc.at("06:52:30")
    es_pods = ["jobs-es-es-data-0", "jobs-es-es-data-1", "jobs-es-es-data-2"]

    blk = ("ElasticsearchStatusException[Elasticsearch exception [type=cluster_block_exception, reason=index [jobs-v7] blocked by: "
           "[TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage watermark, index has read-only-allow-delete block];]]")
    stack = (f"co.elastic.clients.elasticsearch._types.ElasticsearchException: [es/bulk] failed: [cluster_block_exception] index [jobs-v7] blocked by: "
             "[TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage watermark, index has read-only-allow-delete block];\n"
             "\tat co.elastic.clients.transport.ElasticsearchTransportBase.getApiResponse(ElasticsearchTransportBase.java:345)\n"
             "\tat co.elastic.clients.transport.ElasticsearchTransportBase.performRequest(ElasticsearchTransportBase.java:147)\n"
             "\tat co.elastic.clients.elasticsearch.ElasticsearchClient.bulk(ElasticsearchClient.java:386)\n"
             "\tat io.jobsy.indexer.BulkWriter.flush(BulkWriter.java:71)\n"
             "\tat io.jobsy.indexer.JobEventsListener.onBatch(JobEventsListener.java:44)\n"
             "\tat org.springframework.kafka.listener.KafkaMessageListenerContainer$ListenerConsumer.doInvokeBatchListener(KafkaMessageListenerContainer.java:2438)")
    lab = lambda s, pod, lvl, nsx=ns: {"container": s, "namespace": nsx, "pod": pod, "level": lvl}
    t0, t1 = sc.at("06:00"), sc.at("08:38")

    def batch(t):
        bad = t >= flood
        tr = sc.trace()
        st = us(t)
        p = idx.pod()
        n = sc.rng.randint(20, 200)
        d = sc.rng.randint(30_000, 120_000)
        c = tr.span(idx, "job-events process", st, d + 8_000, pod=p, kind="consumer", error=blk if bad else None,
                    tags={"messaging.system": "kafka", "messaging.destination.name": "job-events", "messaging.operation.type": "process",
                          "messaging.batch.message_count": n, "messaging.kafka.consumer.group": "job-indexer", "otel.scope.name": "io.opentelemetry.spring-kafka-2.7"},
                    events=[exc_event(st + d + 7_000, "co.elastic.clients.elasticsearch._types.ElasticsearchException",
                                      "[es/bulk] failed: [cluster_block_exception] index [jobs-v7] blocked by: [TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage watermark, index has read-only-allow-delete block];",
                                      stack)] if bad else None)
        tr.span(idx, "bulk", st + 3_000, d, parent=c, kind="client", error="429 Too Many Requests" if bad else None,
                tags={**db("elasticsearch", "POST /_bulk", None, "jobs-es-es-http.search.svc", 9200, "bulk"),
                      "http.request.method": "POST", "http.response.status_code": 429 if bad else 200, "url.full": "https://jobs-es-es-http.search.svc:9200/_bulk",
                      "db.elasticsearch.cluster.name": "jobs-es"})
        tt = from_us(st + d + 7_500)
        if bad:
            sc.log(lab("job-indexer", p, "error"), tt, java_log_spring(tt, "ERROR", "job-indexer", "org.springframework.kafka.KafkaListenerEndpointContainer#0-0-C-1",
                                                                       "i.j.indexer.BulkWriter", f"bulk of {n} docs rejected, will retry in 30s\n{stack}", tr.id, c["spanID"]))
        else:
            sc.log(lab("job-indexer", p, "info"), tt, java_log_spring(tt, "INFO", "job-indexer", "org.springframework.kafka.KafkaListenerEndpointContainer#0-0-C-1",
                                                                      "i.j.indexer.BulkWriter", f"indexed {n} docs into jobs-v7 in {d // 1000} ms", tr.id, c["spanID"]))

    for t in sc.times(t0, t1, 24):
        batch(t)
    for t in sc.times(t0, t1, 60):
        tr = sc.trace()
        st = us(t)
        p = api.pod()
        s = tr.span(api, "GET /v1/jobs/search", st, sc.rng.randint(20_000, 90_000), pod=p,
                    tags=http_server("GET", "/v1/jobs/search", 200, host="search-api", port=8080, scope="go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"))
        tr.span(api, "search", st + 1_000, s["duration"] - 4_000, parent=s, kind="client",
                tags=db("elasticsearch", "POST /jobs/_search", None, "jobs-es-es-http.search.svc", 9200, "search"))
    for t in sc.times(t0, t1, 120):
        p = idx.pod()
        if t >= flood:
            sc.log(lab("job-indexer", p, "error"), t, java_log_spring(t, "ERROR", "job-indexer", "org.springframework.kafka.KafkaListenerEndpointContainer#0-0-C-1",
                                                                      "i.j.indexer.BulkWriter", f"bulk of {sc.rng.randint(20, 200)} docs rejected, will retry in 30s\n{stack}"))
        else:
            sc.log(lab("job-indexer", p, "info"), t, java_log_spring(t, "INFO", "job-indexer", "org.springframework.kafka.KafkaListenerEndpointContainer#0-0-C-1",
                                                                     "i.j.indexer.BulkWriter", f"indexed {sc.rng.randint(20, 200)} docs into jobs-v7 in {sc.rng.randint(30, 120)} ms"))
    for i, ep in enumerate(es_pods):
        for t in sc.times(sc.at("06:20"), t1, 14):
            used = 0.90 if t < flood else 0.953 + 0.001 * i
            if t < flood:
                msg = {"@timestamp": iso(t, 3), "log.level": "WARN", "message": f"high disk watermark [90%] exceeded on [{sc.hex(22)}][{ep}][/usr/share/elasticsearch/data] free: {int((1 - used) * 200)}gb[{(1 - used) * 100:.1f}%], shards will be relocated away from this node; currently relocating away shards totalling [0b] bytes; the node is expected to continue to exceed the high disk watermark when these relocations are complete",
                       "ecs.version": "1.2.0", "service.name": "ES_ECS", "event.dataset": "elasticsearch.server", "log.logger": "org.elasticsearch.cluster.routing.allocation.DiskThresholdMonitor",
                       "elasticsearch.cluster.name": "jobs-es", "elasticsearch.node.name": ep}
            else:
                msg = {"@timestamp": iso(t, 3), "log.level": "WARN", "message": f"flood stage disk watermark [95%] exceeded on [{sc.hex(22)}][{ep}][/usr/share/elasticsearch/data] free: {(1 - used) * 200:.1f}gb[{(1 - used) * 100:.1f}%], all indices on this node will be marked read-only",
                       "ecs.version": "1.2.0", "service.name": "ES_ECS", "event.dataset": "elasticsearch.server", "log.logger": "org.elasticsearch.cluster.routing.allocation.DiskThresholdMonitor",
                       "elasticsearch.cluster.name": "jobs-es", "elasticsearch.node.name": ep}
            sc.log(lab("elasticsearch", ep, "warn"), t, json.dumps(msg))
        ilm_t = sc.at("06:30") + dt.timedelta(minutes=10 * i)
        sc.log(lab("elasticsearch", ep, "error"), ilm_t, json.dumps({
            "@timestamp": iso(ilm_t, 3), "log.level": "ERROR", "log.logger": "org.elasticsearch.xpack.ilm.IndexLifecycleRunner",
            "message": f"policy [job-views-rollover] for index [job-views-2026.12.{15 - i:02d}] failed on step [{{\"phase\":\"hot\",\"action\":\"rollover\",\"name\":\"check-rollover-ready\"}}]. Moving to ERROR step",
            "error.message": "index.lifecycle.rollover_alias [job-views] does not point to index [job-views-2026.12.%02d]" % (15 - i),
            "elasticsearch.cluster.name": "jobs-es", "elasticsearch.node.name": ep}))
    for t in sc.times(t0, t1, 20):
        sc.log(lab("search-api", api.pod(), "warn"), t, json.dumps({"level": "warn", "ts": round(t.timestamp(), 6), "msg": "GC pause above target", "pause_ms": sc.rng.randint(12, 40)}))

    m0, m1 = sc.at("05:50"), sc.at("08:39")
    for i, ep in enumerate(es_pods):
        sc.gauge({"__name__": "elasticsearch_filesystem_data_available_bytes", "job": "elasticsearch-exporter", "cluster": "jobs-es", "name": ep,
                  "mount": "/usr/share/elasticsearch/data (/dev/nvme1n1)"}, m0, m1,
                 lambda t, i=i: max(8.9e9 - 0.2e9 * i, 24e9 - (t - m0).total_seconds() * 2.0e6))
        sc.gauge({"__name__": "elasticsearch_filesystem_data_size_bytes", "job": "elasticsearch-exporter", "cluster": "jobs-es", "name": ep}, m0, m1,
                 lambda t: 214748364800, step=300)
    sc.counter({"__name__": "elasticsearch_indices_indexing_index_total", "job": "elasticsearch-exporter", "cluster": "jobs-es", "index": "jobs-v7"}, m0, m1,
               lambda t: 0 if t >= flood else 3.3, initial=88_209_311)
    sc.gauge({"__name__": "elasticsearch_indices_docs_primary", "job": "elasticsearch-exporter", "cluster": "jobs-es", "index": "job-views-*"}, m0, m1,
             lambda t: 2.41e9 + (t - m0).total_seconds() * 900, step=300)
    sc.gauge({"__name__": "kafka_consumergroup_lag", "job": "kafka-exporter", "consumergroup": "job-indexer", "topic": "job-events"}, m0, m1,
             lambda t: sc.rng.randint(0, 50) if t < flood else (t - flood).total_seconds() * 2.9)

    k = sc.k8s = K8s(sc)
    nodes = ["aks-search-38472910-vmss000000", "aks-search-38472910-vmss000001", "aks-search-38472910-vmss000002"]
    esvc = sc.svc("jobs-es", ns, "java", pods=es_pods, deploy="jobs-es-es-data")
    ectr = container_spec("elasticsearch", "docker.elastic.co/elasticsearch/elasticsearch:8.15.3", 9200, port_name="https",
                          requests={"cpu": "2", "memory": "8Gi"}, limits={"memory": "8Gi"},
                          readiness={"exec": {"command": ["bash", "-c", "/mnt/elastic-internal/scripts/readiness-probe-script.sh"]},
                                     "periodSeconds": 5, "timeoutSeconds": 5, "successThreshold": 1, "failureThreshold": 3},
                          volume_mounts=[{"name": "elasticsearch-data", "mountPath": "/usr/share/elasticsearch/data"}])
    for i, ep in enumerate(es_pods):
        pod = k.pod(esvc, ep, [ectr], nodes[i], ts("2026-09-01T10:00:00Z"), labels={"elasticsearch.k8s.elastic.co/cluster-name": "jobs-es",
                                                                                     "elasticsearch.k8s.elastic.co/statefulset-name": "jobs-es-es-data"},
                    qos="Guaranteed")
        pod["metadata"]["ownerReferences"][0].update({"kind": "StatefulSet", "name": "jobs-es-es-data"})
        pod["metadata"].pop("generateName", None)
        k.raw({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": k.meta(f"elasticsearch-data-{ep}", ns, ts("2026-09-01T10:00:00Z")),
               "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "200Gi"}}, "storageClassName": "managed-csi-premium"},
               "status": {"phase": "Bound", "capacity": {"storage": "200Gi"}}})
    k.raw({"apiVersion": "elasticsearch.k8s.elastic.co/v1", "kind": "Elasticsearch", "metadata": k.meta("jobs-es", ns, ts("2025-02-02T10:00:00Z"), generation=14),
           "spec": {"version": "8.15.3", "nodeSets": [{"name": "data", "count": 3, "volumeClaimTemplates": [
               {"metadata": {"name": "elasticsearch-data"}, "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "200Gi"}}}}]}]},
           "status": {"health": "yellow", "phase": "Ready", "availableNodes": 3, "version": "8.15.3"}})
    ictr = container_spec("job-indexer", "jobsy.azurecr.io/job-indexer:3.3.0", 8080, requests={"cpu": "500m", "memory": "768Mi"}, limits={"memory": "1Gi"})
    workload(k, idx, ictr, nodes, ts("2025-02-02T10:00:00Z"), sc.at("07:30:05"), 44, labels={"app": "job-indexer"})
    k.event(ns, "Elasticsearch", "jobs-es", "Unhealthy", "Elasticsearch cluster health degraded", sc.at("06:53:10"), etype="Warning",
            component="elasticsearch-controller", api_version="elasticsearch.k8s.elastic.co/v1")

    a = alert(sc, {"alertname": "JobIndexerBulkFailures", "container": "job-indexer", "namespace": ns, "severity": "warning", "team": "search"},
              {"summary": "job-indexer bulk requests failing", "description": "100% of bulk requests from job-indexer failed in the last 15m; job-events lag 8,410."},
              sc.at("07:10:00"), 'sum(rate(indexer_bulk_requests_total{result="failed"}[15m])) / sum(rate(indexer_bulk_requests_total[15m])) > 0.2')
    sc.trigger = {"alert": webhook([a], ["alertname", "team"], "autoheal-search", "https://alertmanager.jobsy.io", route_key='{}/{team="search"}')}
    sc.config = {"log_service_label": "container", "namespace": ns}
    sc.truth = {"bucket": "infrastructure", "service": "jobs-es", "error_type": "resource_exhaustion",
                "fix_keywords": ["disk", "watermark", "read_only_allow_delete", "ILM", "volume"]}
    return sc
